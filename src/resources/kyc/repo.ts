import type { PageRequest } from '../../core/pagination.js';
import { ListQueries, maintainedCountDdl, Where } from '../../core/list-query.js';
import type { Db, Migration } from '../../store/db.js';

/** Beneficial owners, documents, verifications and hosted KYC links. */
export const kycMigrations: Migration[] = [
  {
    id: 'kyc-001',
    sql: `CREATE TABLE beneficial_owners (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      roles TEXT NOT NULL,
      ownership_percentage INTEGER NOT NULL,
      personal_info TEXT NOT NULL,
      kyc_status TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX beneficial_owners_customer ON beneficial_owners (platform_id, customer_id, id);
    CREATE TABLE documents (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      document_holder TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      document_type TEXT NOT NULL,
      side TEXT,
      country TEXT NOT NULL,
      document_number TEXT,
      issuing_authority TEXT,
      file_name TEXT NOT NULL,
      media_type TEXT NOT NULL,
      size INTEGER NOT NULL,
      sha256 TEXT NOT NULL,
      quality_flagged INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX documents_holder ON documents (platform_id, document_holder, id);
    CREATE INDEX documents_customer ON documents (platform_id, customer_id, id);
    CREATE TABLE verifications (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      verification_status TEXT NOT NULL,
      errors TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX verifications_customer ON verifications (platform_id, customer_id, id);
    CREATE TABLE kyc_links (
      token TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      redirect_uri TEXT,
      expires_at TEXT NOT NULL,
      used_at TEXT,
      session_id TEXT,
      created_at TEXT NOT NULL
    );
    CREATE UNIQUE INDEX kyc_links_session ON kyc_links (session_id);`,
  },
  {
    // Lists: a platform index per list and the status filter's (each ending in the sort key); maintained counts per platform (and status).
    id: 'kyc-lists-001',
    sql: `CREATE INDEX beneficial_owners_platform ON beneficial_owners (platform_id, id);
    CREATE INDEX documents_platform ON documents (platform_id, id);
    CREATE INDEX verifications_platform ON verifications (platform_id, id);
    CREATE INDEX verifications_list_status ON verifications (platform_id, verification_status, id);
    ${maintainedCountDdl('beneficial_owners', 'beneficial_owner_counts', [])}
    ${maintainedCountDdl('documents', 'document_counts', [])}
    ${maintainedCountDdl('verifications', 'verification_counts', ['verification_status'])}`,
  },
];

/** A beneficial owner row. */
export interface OwnerRow {
  id: string;
  platform_id: string;
  customer_id: string;
  roles: string;
  ownership_percentage: number;
  personal_info: string;
  kyc_status: string;
  created_at: string;
  updated_at: string;
}

/** A document row (the file itself is not kept: its type, size and digest are). */
export interface DocumentRow {
  id: string;
  platform_id: string;
  document_holder: string;
  customer_id: string;
  document_type: string;
  side: string | null;
  country: string;
  document_number: string | null;
  issuing_authority: string | null;
  file_name: string;
  media_type: string;
  size: number;
  sha256: string;
  quality_flagged: number;
  created_at: string;
  updated_at: string;
}

/** A verification row; `errors` is the JSON of the contract's `VerificationError[]`. */
export interface VerificationRow {
  id: string;
  platform_id: string;
  customer_id: string;
  verification_status: string;
  errors: string;
  created_at: string;
  updated_at: string;
}

/** A hosted KYC link. */
export interface KycLinkRow {
  token: string;
  platform_id: string;
  customer_id: string;
  redirect_uri: string | null;
  expires_at: string;
  used_at: string | null;
  session_id: string | null;
  created_at: string;
}

/** The only SQL of the KYC area. */
export class KycRepo {
  private readonly s;
  private readonly lists;

  constructor(db: Db) {
    this.lists = new ListQueries(db);
    this.s = {
      insertOwner: db.prepare(
        `INSERT INTO beneficial_owners (id, platform_id, customer_id, roles, ownership_percentage, personal_info, kyc_status, created_at, updated_at)
         VALUES (@id, @platform_id, @customer_id, @roles, @ownership_percentage, @personal_info, @kyc_status, @created_at, @updated_at)`,
      ),
      updateOwner: db.prepare(
        `UPDATE beneficial_owners SET roles = @roles, ownership_percentage = @ownership_percentage, personal_info = @personal_info,
         kyc_status = @kyc_status, updated_at = @updated_at WHERE id = @id`,
      ),
      ownerById: db.prepare('SELECT * FROM beneficial_owners WHERE platform_id = ? AND id = ?'),
      ownersOf: db.prepare('SELECT * FROM beneficial_owners WHERE platform_id = ? AND customer_id = ? ORDER BY id'),
      insertDocument: db.prepare(
        `INSERT INTO documents (id, platform_id, document_holder, customer_id, document_type, side, country, document_number, issuing_authority,
         file_name, media_type, size, sha256, quality_flagged, created_at, updated_at)
         VALUES (@id, @platform_id, @document_holder, @customer_id, @document_type, @side, @country, @document_number, @issuing_authority,
         @file_name, @media_type, @size, @sha256, @quality_flagged, @created_at, @updated_at)`,
      ),
      updateDocument: db.prepare(
        `UPDATE documents SET document_type = @document_type, side = @side, country = @country, document_number = @document_number,
         issuing_authority = @issuing_authority, file_name = @file_name, media_type = @media_type, size = @size, sha256 = @sha256,
         quality_flagged = @quality_flagged, updated_at = @updated_at WHERE id = @id`,
      ),
      deleteDocument: db.prepare('DELETE FROM documents WHERE id = ?'),
      documentById: db.prepare('SELECT * FROM documents WHERE platform_id = ? AND id = ?'),
      documentsOfCustomer: db.prepare('SELECT * FROM documents WHERE platform_id = ? AND customer_id = ? ORDER BY id'),
      flagDocument: db.prepare('UPDATE documents SET quality_flagged = 1 WHERE id = ?'),
      insertVerification: db.prepare(
        `INSERT INTO verifications (id, platform_id, customer_id, verification_status, errors, created_at, updated_at)
         VALUES (@id, @platform_id, @customer_id, @verification_status, @errors, @created_at, @updated_at)`,
      ),
      updateVerification: db.prepare('UPDATE verifications SET verification_status = @verification_status, errors = @errors, updated_at = @updated_at WHERE id = @id'),
      verificationById: db.prepare('SELECT * FROM verifications WHERE platform_id = ? AND id = ?'),
      verificationsOf: db.prepare('SELECT * FROM verifications WHERE platform_id = ? AND customer_id = ? ORDER BY id'),
      insertLink: db.prepare(
        `INSERT INTO kyc_links (token, platform_id, customer_id, redirect_uri, expires_at, used_at, session_id, created_at)
         VALUES (@token, @platform_id, @customer_id, @redirect_uri, @expires_at, @used_at, @session_id, @created_at)`,
      ),
      linkByToken: db.prepare('SELECT * FROM kyc_links WHERE token = ?'),
      linkBySession: db.prepare('SELECT * FROM kyc_links WHERE session_id = ?'),
      useLink: db.prepare('UPDATE kyc_links SET used_at = ?, session_id = ? WHERE token = ? AND used_at IS NULL'),
      removeOwners: db.prepare('DELETE FROM beneficial_owners WHERE platform_id = ?'),
      removeDocuments: db.prepare('DELETE FROM documents WHERE platform_id = ?'),
      removeVerifications: db.prepare('DELETE FROM verifications WHERE platform_id = ?'),
      removeLinks: db.prepare('DELETE FROM kyc_links WHERE platform_id = ?'),
    };
  }

  insertOwner(row: OwnerRow): void {
    this.s.insertOwner.run(row);
  }
  updateOwner(row: OwnerRow): void {
    this.s.updateOwner.run(row);
  }
  ownerById(platformId: string, id: string): OwnerRow | undefined {
    return this.s.ownerById.get(platformId, id) as OwnerRow | undefined;
  }
  ownersOf(platformId: string, customerId: string): OwnerRow[] {
    return this.s.ownersOf.all(platformId, customerId) as OwnerRow[];
  }
  /** A page in id order through the customer index (or the platform's). */
  ownerPage(platformId: string, customerId: string | undefined, request: PageRequest): OwnerRow[] {
    const where = new Where().eq('platform_id', platformId).eq('customer_id', customerId);
    const index = customerId === undefined ? 'beneficial_owners_platform' : 'beneficial_owners_customer';
    return this.lists.page<OwnerRow>({ table: 'beneficial_owners', where, index, afterKey: request.afterKey, take: request.take });
  }
  /** One customer's owners counted through its index; the platform's from the maintained count. */
  ownerCount(platformId: string, customerId: string | undefined): number {
    const where = new Where().eq('platform_id', platformId);
    if (customerId === undefined) return this.lists.maintained('beneficial_owner_counts', where);
    return this.lists.countUpTo('beneficial_owners', where.eq('customer_id', customerId), 'beneficial_owners_customer');
  }

  insertDocument(row: DocumentRow): void {
    this.s.insertDocument.run(row);
  }
  updateDocument(row: DocumentRow): void {
    this.s.updateDocument.run(row);
  }
  deleteDocument(id: string): void {
    this.s.deleteDocument.run(id);
  }
  documentById(platformId: string, id: string): DocumentRow | undefined {
    return this.s.documentById.get(platformId, id) as DocumentRow | undefined;
  }
  /** Every document of a customer's packet: its own and its owners'. */
  documentsOfCustomer(platformId: string, customerId: string): DocumentRow[] {
    return this.s.documentsOfCustomer.all(platformId, customerId) as DocumentRow[];
  }
  /** A page in id order through the holder index (or the platform's). */
  documentPage(platformId: string, holder: string | undefined, request: PageRequest): DocumentRow[] {
    const where = new Where().eq('platform_id', platformId).eq('document_holder', holder);
    const index = holder === undefined ? 'documents_platform' : 'documents_holder';
    return this.lists.page<DocumentRow>({ table: 'documents', where, index, afterKey: request.afterKey, take: request.take });
  }
  /** One holder's documents counted through its index; the platform's from the maintained count. */
  documentCount(platformId: string, holder: string | undefined): number {
    const where = new Where().eq('platform_id', platformId);
    if (holder === undefined) return this.lists.maintained('document_counts', where);
    return this.lists.countUpTo('documents', where.eq('document_holder', holder), 'documents_holder');
  }
  flagDocument(id: string): void {
    this.s.flagDocument.run(id);
  }

  insertVerification(row: VerificationRow): void {
    this.s.insertVerification.run(row);
  }
  updateVerification(row: VerificationRow): void {
    this.s.updateVerification.run(row);
  }
  verificationById(platformId: string, id: string): VerificationRow | undefined {
    return this.s.verificationById.get(platformId, id) as VerificationRow | undefined;
  }
  verificationsOf(platformId: string, customerId: string): VerificationRow[] {
    return this.s.verificationsOf.all(platformId, customerId) as VerificationRow[];
  }
  /** A page in id order through the index of the filter given. */
  verificationPage(platformId: string, customerId: string | undefined, status: string | undefined, request: PageRequest): VerificationRow[] {
    const where = new Where().eq('platform_id', platformId).eq('customer_id', customerId).eq('verification_status', status);
    const index = customerId !== undefined ? 'verifications_customer' : status !== undefined ? 'verifications_list_status' : 'verifications_platform';
    return this.lists.page<VerificationRow>({ table: 'verifications', where, index, afterKey: request.afterKey, take: request.take });
  }
  /** One customer's verifications counted through its index; otherwise the maintained count per status. */
  verificationCount(platformId: string, customerId: string | undefined, status: string | undefined): number {
    if (customerId === undefined) return this.lists.maintained('verification_counts', new Where().eq('platform_id', platformId).eq('verification_status', status));
    const where = new Where().eq('platform_id', platformId).eq('customer_id', customerId).eq('verification_status', status);
    return this.lists.countUpTo('verifications', where, 'verifications_customer');
  }

  insertLink(row: KycLinkRow): void {
    this.s.insertLink.run(row);
  }
  linkByToken(token: string): KycLinkRow | undefined {
    return this.s.linkByToken.get(token) as KycLinkRow | undefined;
  }
  linkBySession(sessionId: string): KycLinkRow | undefined {
    return this.s.linkBySession.get(sessionId) as KycLinkRow | undefined;
  }
  /** Marks a link used, opening a hosted session; false when it was already used. */
  useLink(token: string, usedAt: string, sessionId: string): boolean {
    return this.s.useLink.run(usedAt, sessionId, token).changes === 1;
  }

  removePlatform(platformId: string): void {
    this.s.removeLinks.run(platformId);
    this.s.removeVerifications.run(platformId);
    this.s.removeDocuments.run(platformId);
    this.s.removeOwners.run(platformId);
  }
}
