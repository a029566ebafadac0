import { perContext } from '../../core/per-context.js';
import { createHash } from 'node:crypto';
import type { SandboxContext } from '../../store/context.js';
import { ApiError, ErrorCode, type FieldError, invalidInput, notFound } from '../../core/errors.js';
import { paginate, type Page } from '../../core/pagination.js';
import {
  AUTOMATIC_REVIEW_SECONDS,
  businessDefaultRule,
  businessVerificationRule,
  documentRejectionBySuffix,
  documentRejectionRules,
  individualVerificationRule,
  ownerDefaultStatus,
  ownerLastNameRules,
  ownerStatusAtVerification,
  paperworkSkippingRules,
  registrationNumberRules,
  suffixOf,
} from '../../rules/kyc-rules.js';
import { recordRule } from '../../store/coverage.js';
import { EU_COUNTRIES, getCustomer, setCustomerStatus, type CustomerRecord, type KycStatus } from '../customers/index.js';
import { platformService, type Platform } from '../../tenancy/index.js';
import { KycRepo, type DocumentRow, type OwnerRow, type VerificationRow } from './repo.js';
import type { DocumentFields, DocumentType, OwnerCreate, OwnerUpdate } from './schemas.js';

/** The contract's `VerificationStatus` values the sandbox uses. */
export type VerificationStatus = 'RESOLVE_ERRORS' | 'PENDING_MANUAL_REVIEW' | 'IN_PROGRESS' | 'APPROVED' | 'REJECTED';

/** The contract's `VerificationError`. */
export interface VerificationError {
  resourceId: string;
  type: string;
  field?: string;
  acceptedDocumentTypes?: DocumentType[];
  reason: string;
}

/** A manual KYC/KYB decision (CLI, hosted flow). */
export type KycDecision = 'APPROVED' | 'REJECTED' | 'HOLD';

const REVIEW_JOB = 'kyc.automatic-review';
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const REFERENCE_NOT_FOUND = 'REFERENCE_NOT_FOUND';

// API.md "Document (multipart upload)" and the remediation table.
const IDENTITY_TYPES: DocumentType[] = ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID'];
const TWO_SIDED: ReadonlySet<string> = new Set(['DRIVERS_LICENSE', 'NATIONAL_ID']);
const PROOF_OF_ADDRESS_TYPES: DocumentType[] = ['UTILITY_BILL', 'ELECTRICITY_BILL', 'RENT_OR_LEASE_AGREEMENT', 'BANK_STATEMENT', 'TAX_RETURN', 'PROOF_OF_ADDRESS'];
const LEGAL_PRESENCE_TYPES: DocumentType[] = ['CERTIFICATE_OF_INCORPORATION', 'ARTICLES_OF_INCORPORATION', 'STATE_REGISTRY_EXCERPT', 'STATE_COMPANY_REGISTRY', 'BUSINESS_LICENSE'];
const OWNERSHIP_STRUCTURE_TYPES: DocumentType[] = ['SHAREHOLDER_REGISTER', 'ARTICLES_OF_ASSOCIATION', 'PARTNERSHIP_AGREEMENT', 'TRUST_AGREEMENT'];
const CONTROL_STRUCTURE_TYPES: DocumentType[] = ['DIRECTOR_REGISTRY', 'INCUMBENCY_CERTIFICATE', 'POWER_OF_ATTORNEY', 'PARTNERSHIP_CONTROL_AGREEMENT', 'INFORMATION_STATEMENT'];
const CONTROL_ROLES: ReadonlySet<string> = new Set(['CONTROL_PERSON', 'DIRECTOR', 'COMPANY_OFFICER', 'GENERAL_PARTNER', 'TRUSTEE']);
/** API.md remediation table: terminal compliance outcomes, never cleared by resubmission. */
const TERMINAL_TYPES: ReadonlySet<string> = new Set(['SUSPECTED_FRAUD_DOCUMENT', 'APPLICANT_SANCTIONED', 'APPLICANT_FRAUD', 'APPLICANT_CRIMINAL_RECORD', 'APPLICANT_REJECTED']);
const OPEN_STATUSES: ReadonlySet<string> = new Set(['RESOLVE_ERRORS', 'IN_PROGRESS', 'PENDING_MANUAL_REVIEW']);

/** The KYC repo of a context (statements prepared once). */
export const kycRepo = perContext((ctx: SandboxContext) => new KycRepo(ctx.db));

// ---------------------------------------------------------------------------------------------
// Beneficial owners
// ---------------------------------------------------------------------------------------------

/** The contract's `BeneficialOwner`. */
export function presentOwner(row: OwnerRow): Record<string, unknown> {
  return {
    id: row.id,
    customerId: row.customer_id,
    roles: JSON.parse(row.roles) as unknown,
    ownershipPercentage: row.ownership_percentage,
    personalInfo: JSON.parse(row.personal_info) as unknown,
    kycStatus: row.kyc_status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function ownerOf(ctx: SandboxContext, platformId: string, id: string): OwnerRow {
  const row = kycRepo(ctx).ownerById(platformId, id);
  if (!row) throw notFound('USER_NOT_FOUND', `No beneficial owner ${id} on this platform.`);
  return row;
}

function businessOf(ctx: SandboxContext, platformId: string, customerId: string): CustomerRecord {
  const customer = getCustomer(ctx, platformId, customerId);
  if (customer.customerType !== 'BUSINESS') {
    throw invalidInput(`Customer ${customerId} is an individual; beneficial owners belong to business customers.`, [
      { field: 'customerId', message: 'Pass the id of a BUSINESS customer.' },
    ]);
  }
  return customer;
}

function checkOwnerInfo(info: Record<string, any>, errors: FieldError[]): void {
  if (info.idType === 'SSN' && info.identifier !== undefined && !/^\d{3}-\d{2}-\d{4}$/.test(info.identifier)) {
    errors.push({ field: 'personalInfo.identifier', constraint: { pattern: '^\\d{3}-\\d{2}-\\d{4}$' }, message: 'An SSN has the form 123-45-6789.' });
  }
  if (info.idType === 'ITIN' && info.identifier !== undefined && !/^9\d{2}-\d{2}-\d{4}$/.test(info.identifier)) {
    errors.push({ field: 'personalInfo.identifier', constraint: { pattern: '^9\\d{2}-\\d{2}-\\d{4}$' }, message: 'An ITIN has the form 912-70-1234.' });
  }
}

function checkOwnershipTotal(ctx: SandboxContext, platformId: string, customerId: string, exceptId: string | undefined, percentage: number): void {
  const others = kycRepo(ctx)
    .ownersOf(platformId, customerId)
    .filter((o) => o.id !== exceptId)
    .reduce((sum, o) => sum + o.ownership_percentage, 0);
  if (others + percentage > 100) {
    throw invalidInput(`Owners of this business would hold ${others + percentage} %; the total cannot exceed 100 %.`, [
      { field: 'ownershipPercentage', constraint: { maximum: 100 - others }, message: `At most ${100 - others} % is left.` },
    ]);
  }
}

/** `POST /beneficial-owners`. */
export function createOwner(ctx: SandboxContext, platform: Platform, input: OwnerCreate): OwnerRow {
  return ctx.tx(() => {
    const business = businessOf(ctx, platform.id, input.customerId);
    const errors: FieldError[] = [];
    checkOwnerInfo(input.personalInfo, errors);
    if (errors.length) throw invalidInput('The beneficial owner is not valid.', errors);
    checkOwnershipTotal(ctx, platform.id, business.id, undefined, input.ownershipPercentage);
    const now = ctx.clock.iso();
    const row: OwnerRow = {
      id: ctx.ids.next('BeneficialOwner'),
      platform_id: platform.id,
      customer_id: business.id,
      roles: JSON.stringify([...new Set(input.roles)]),
      ownership_percentage: input.ownershipPercentage,
      personal_info: JSON.stringify(input.personalInfo),
      // Owners are resolved when their business is verified (sandbox-rules.md); an approved business resolves them at once.
      kyc_status: business.kycStatus === 'APPROVED' ? ownerOutcome(ctx, platform.id, input.personalInfo.lastName) : 'UNVERIFIED',
      created_at: now,
      updated_at: now,
    };
    kycRepo(ctx).insertOwner(row);
    return row;
  });
}

/** `GET /beneficial-owners/{id}`. */
export function getOwner(ctx: SandboxContext, platform: Platform, id: string): OwnerRow {
  return ownerOf(ctx, platform.id, id);
}

/** `PATCH /beneficial-owners/{id}`: personalInfo merges field by field. */
export function updateOwner(ctx: SandboxContext, platform: Platform, id: string, input: OwnerUpdate): OwnerRow {
  return ctx.tx(() => {
    const current = ownerOf(ctx, platform.id, id);
    const info = { ...(JSON.parse(current.personal_info) as Record<string, unknown>), ...stripUndefined(input.personalInfo ?? {}) };
    const errors: FieldError[] = [];
    checkOwnerInfo(info, errors);
    if (errors.length) throw invalidInput('The beneficial owner update is not valid.', errors);
    const percentage = input.ownershipPercentage ?? current.ownership_percentage;
    checkOwnershipTotal(ctx, platform.id, current.customer_id, current.id, percentage);
    const row: OwnerRow = {
      ...current,
      roles: input.roles ? JSON.stringify([...new Set(input.roles)]) : current.roles,
      ownership_percentage: percentage,
      personal_info: JSON.stringify(info),
      updated_at: ctx.clock.iso(),
    };
    kycRepo(ctx).updateOwner(row);
    return row;
  });
}

/** `GET /beneficial-owners`. */
export function listOwners(ctx: SandboxContext, platform: Platform, query: { customerId?: string | undefined; limit: number; cursor?: string | undefined }): Page<Record<string, unknown>> {
  const repo = kycRepo(ctx);
  return paginate(query, (r) => repo.ownerPage(platform.id, query.customerId, r), () => repo.ownerCount(platform.id, query.customerId), (row) => row.id, presentOwner);
}

function ownerOutcome(ctx: SandboxContext, platformId: string, lastName: string | undefined): KycStatus {
  const suffix = suffixOf(lastName);
  recordRule(ctx, platformId, ownerLastNameRules.of(suffix));
  return ownerStatusAtVerification[suffix] ?? ownerDefaultStatus;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

// ---------------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------------

/** An uploaded file as the route hands it over. */
export interface UploadedFile {
  name: string;
  declaredType: string;
  bytes: Uint8Array;
}

/** The contract's `Document`. */
export function presentDocument(row: DocumentRow): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id, documentHolder: row.document_holder, documentType: row.document_type };
  if (row.side) out.side = row.side;
  out.country = row.country;
  if (row.document_number) out.documentNumber = row.document_number;
  if (row.issuing_authority) out.issuingAuthority = row.issuing_authority;
  out.fileName = row.file_name;
  out.createdAt = row.created_at;
  out.updatedAt = row.updated_at;
  return out;
}

/** The media type a file really is, judged by its first bytes (API.md Limits: PDF, JPEG, PNG only). */
export function sniffMediaType(bytes: Uint8Array): 'application/pdf' | 'image/jpeg' | 'image/png' | undefined {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'application/pdf';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  return undefined;
}

/** Checks the file and the fields of an upload or replacement; throws 400 or 422. */
function checkDocument(ctx: SandboxContext, platformId: string, fields: DocumentFields, file: UploadedFile | undefined): { mediaType: string; file: UploadedFile } {
  const errors: FieldError[] = [];
  if (!file) {
    throw invalidInput('The file is required.', [{ field: 'file', constraint: { required: true }, message: 'Send the document as the multipart part "file".' }]);
  }
  // API.md Limits: 10 MB or smaller.
  if (file.bytes.byteLength > MAX_FILE_BYTES) {
    throw invalidInput(`The file is ${(file.bytes.byteLength / 1024 / 1024).toFixed(1)} MB; documents must be 10 MB or smaller.`, [
      { field: 'file', constraint: { maxLength: MAX_FILE_BYTES }, message: 'Upload a file of 10 MB or less.' },
    ]);
  }
  const mediaType = sniffMediaType(file.bytes);
  if (!mediaType) {
    throw invalidInput(`${file.name} is not a PDF, JPEG or PNG file (judged by its content${file.declaredType ? `, whatever its declared type ${file.declaredType}` : ''}).`, [
      { field: 'file', constraint: { enum: ['application/pdf', 'image/jpeg', 'image/png'] }, message: 'Only PDF, JPEG and PNG files are accepted.' },
    ]);
  }
  if (IDENTITY_TYPES.includes(fields.documentType)) {
    if (!fields.documentNumber) errors.push({ field: 'documentNumber', constraint: { required: true }, message: `${fields.documentType} needs its documentNumber.` });
    if (!fields.issuingAuthority) errors.push({ field: 'issuingAuthority', constraint: { required: true }, message: `${fields.documentType} needs its issuingAuthority.` });
  }
  if (TWO_SIDED.has(fields.documentType) && !fields.side) {
    errors.push({ field: 'side', constraint: { enum: ['FRONT', 'BACK'] }, message: `${fields.documentType} is two-sided: upload FRONT and BACK separately, each with its side.` });
  }
  if (!TWO_SIDED.has(fields.documentType) && fields.side === 'BACK') {
    errors.push({ field: 'side', constraint: { enum: ['FRONT'] }, message: `${fields.documentType} is single-sided.` });
  }
  if (errors.length) throw invalidInput('The document is not valid.', errors);
  // Sandbox rule (sandbox-rules.md): a file name ending in 422 to 427 before its extension is
  // rejected, with the reason of that suffix.
  const suffix = suffixOf(file.name.replace(/\.[^.]*$/, ''));
  const rejection = documentRejectionBySuffix[suffix];
  if (rejection) {
    recordRule(ctx, platformId, documentRejectionRules.of(suffix));
    throw new ApiError(422, 'DOCUMENT_REJECTED', rejection.message, { reason: rejection.reason, fileName: file.name });
  }
  return { mediaType, file };
}

function holderCustomerId(ctx: SandboxContext, platform: Platform, holder: string): string {
  if (holder.startsWith('BeneficialOwner:')) return ownerOf(ctx, platform.id, holder).customer_id;
  return getCustomer(ctx, platform.id, holder).id;
}

function documentOf(ctx: SandboxContext, platformId: string, id: string): DocumentRow {
  const row = kycRepo(ctx).documentById(platformId, id);
  if (!row) throw notFound(REFERENCE_NOT_FOUND, `No document ${id} on this platform.`);
  return row;
}

/** The columns a document's fields and checked file decide (shared by upload and replace). */
function documentColumns(fields: DocumentFields, checked: ReturnType<typeof checkDocument>) {
  return {
    document_type: fields.documentType,
    side: fields.side ?? null,
    country: fields.country,
    document_number: fields.documentNumber ?? null,
    issuing_authority: fields.issuingAuthority ?? null,
    file_name: checked.file.name,
    media_type: checked.mediaType,
    size: checked.file.bytes.byteLength,
    sha256: createHash('sha256').update(checked.file.bytes).digest('hex'),
    quality_flagged: 0,
  };
}

/** `POST /documents`. */
export function uploadDocument(ctx: SandboxContext, platform: Platform, fields: DocumentFields & { documentHolder: string }, file: UploadedFile | undefined): DocumentRow {
  return ctx.tx(() => {
    const customerId = holderCustomerId(ctx, platform, fields.documentHolder);
    const checked = checkDocument(ctx, platform.id, fields, file);
    const now = ctx.clock.iso();
    const row: DocumentRow = {
      id: ctx.ids.next('Document'),
      platform_id: platform.id,
      document_holder: fields.documentHolder,
      customer_id: customerId,
      ...documentColumns(fields, checked),
      created_at: now,
      updated_at: now,
    };
    kycRepo(ctx).insertDocument(row);
    return row;
  });
}

/** `PUT /documents/{id}`: a new file and fields for the same document; clears a quality flag. */
export function replaceDocument(ctx: SandboxContext, platform: Platform, id: string, fields: DocumentFields, file: UploadedFile | undefined): DocumentRow {
  return ctx.tx(() => {
    const current = documentOf(ctx, platform.id, id);
    const checked = checkDocument(ctx, platform.id, fields, file);
    const row: DocumentRow = {
      ...current,
      ...documentColumns(fields, checked),
      updated_at: ctx.clock.iso(),
    };
    kycRepo(ctx).updateDocument(row);
    return row;
  });
}

/** `DELETE /documents/{id}`: 409 while the packet it belongs to is under review or approved. */
export function deleteDocument(ctx: SandboxContext, platform: Platform, id: string): void {
  ctx.tx(() => {
    const row = documentOf(ctx, platform.id, id);
    const latest = kycRepo(ctx).verificationsOf(platform.id, row.customer_id).at(-1);
    if (latest && ['IN_PROGRESS', 'PENDING_MANUAL_REVIEW', 'APPROVED'].includes(latest.verification_status)) {
      throw new ApiError(409, ErrorCode.CONFLICT, `Document ${id} is part of a verification that is ${latest.verification_status}; it cannot be deleted now.`, {
        verificationId: latest.id,
      });
    }
    kycRepo(ctx).deleteDocument(id);
  });
}

/** `GET /documents/{id}`. */
export function getDocument(ctx: SandboxContext, platform: Platform, id: string): DocumentRow {
  return documentOf(ctx, platform.id, id);
}

/** `GET /documents`. */
export function listDocuments(ctx: SandboxContext, platform: Platform, query: { documentHolder?: string | undefined; limit: number; cursor?: string | undefined }): Page<Record<string, unknown>> {
  const repo = kycRepo(ctx);
  return paginate(query, (r) => repo.documentPage(platform.id, query.documentHolder, r), () => repo.documentCount(platform.id, query.documentHolder), (row) => row.id, presentDocument);
}

// ---------------------------------------------------------------------------------------------
// Verification: the gaps of a packet
// ---------------------------------------------------------------------------------------------

const isBlank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function missingField(resourceId: string, field: string, why = 'is required for verification'): VerificationError {
  return { resourceId, type: 'MISSING_FIELD', field, reason: `${field} ${why}.` };
}

function addressGaps(resourceId: string, prefix: string, address: Record<string, unknown> | undefined, out: VerificationError[]): void {
  for (const key of ['line1', 'postalCode', 'country']) {
    if (isBlank(address?.[key])) out.push(missingField(resourceId, `${prefix}${key}`));
  }
}

/** Months before `iso`, as an ISO instant (calendar months, UTC). */
function monthsBefore(iso: string, months: number): string {
  const d = new Date(iso);
  d.setUTCMonth(d.getUTCMonth() - months);
  return d.toISOString();
}

/**
 * The identity-document gaps of one holder: a PASSPORT, or a DRIVERS_LICENSE / NATIONAL_ID
 * with FRONT and BACK; with `twoIds`, a passport plus one more government id (non-US owners).
 * Documents flagged for quality do not count and are reported as POOR_QUALITY_DOCUMENT.
 */
function identityGaps(holderId: string, docs: DocumentRow[], twoIds: boolean, out: VerificationError[]): void {
  const identity = docs.filter((d) => d.document_holder === holderId && IDENTITY_TYPES.includes(d.document_type as DocumentType));
  const flagged = identity.filter((d) => d.quality_flagged === 1);
  const usable = identity.filter((d) => d.quality_flagged === 0);
  const hasPassport = usable.some((d) => d.document_type === 'PASSPORT');
  const complete = (type: string) => ['FRONT', 'BACK'].every((side) => usable.some((d) => d.document_type === type && d.side === side));
  const hasTwoSided = [...TWO_SIDED].some(complete);
  const satisfied = twoIds ? hasPassport && hasTwoSided : hasPassport || hasTwoSided;
  if (satisfied) return;
  let reported = false;
  for (const type of TWO_SIDED) {
    const sides = usable.filter((d) => d.document_type === type);
    if (sides.length > 0 && !complete(type)) {
      const present = sides[0]!;
      reported = true;
      out.push({
        resourceId: present.id,
        type: 'INCOMPLETE_DOCUMENT',
        acceptedDocumentTypes: [type as DocumentType],
        reason: `${type} is two-sided: upload the ${present.side === 'FRONT' ? 'BACK' : 'FRONT'} side as well.`,
      });
    }
  }
  for (const doc of flagged) {
    reported = true;
    out.push({
      resourceId: doc.id,
      type: 'POOR_QUALITY_DOCUMENT',
      acceptedDocumentTypes: IDENTITY_TYPES,
      reason: 'The document image is not clear enough to read; upload a replacement (PUT /documents/{id}).',
    });
  }
  if (twoIds) {
    out.push({
      resourceId: holderId,
      type: 'MISSING_IDENTITY_DOCUMENT',
      acceptedDocumentTypes: hasPassport ? ['DRIVERS_LICENSE', 'NATIONAL_ID'] : ['PASSPORT'],
      reason: "A non-US owner needs a passport plus one more government id (a driver's license or national id, front and back).",
    });
  } else if (!reported) {
    out.push({
      resourceId: holderId,
      type: 'MISSING_IDENTITY_DOCUMENT',
      acceptedDocumentTypes: IDENTITY_TYPES,
      reason: 'Upload a PASSPORT, or a DRIVERS_LICENSE or NATIONAL_ID with FRONT and BACK.',
    });
  }
}

/** Proof of address: where required, one dated within the last 3 months (API.md Limits); stale ones are EXPIRED_DOCUMENT. */
function proofOfAddressGaps(ctx: SandboxContext, holderId: string, docs: DocumentRow[], required: boolean, out: VerificationError[]): void {
  const proofs = docs.filter((d) => d.document_holder === holderId && PROOF_OF_ADDRESS_TYPES.includes(d.document_type as DocumentType));
  const cutoff = monthsBefore(ctx.clock.iso(), 3);
  const fresh = proofs.filter((d) => d.updated_at >= cutoff);
  for (const stale of proofs.filter((d) => d.updated_at < cutoff)) {
    out.push({
      resourceId: stale.id,
      type: 'EXPIRED_DOCUMENT',
      acceptedDocumentTypes: PROOF_OF_ADDRESS_TYPES,
      reason: 'Proof of address must be dated within the last 3 months; upload a recent one.',
    });
  }
  if (required && fresh.length === 0 && proofs.length === 0) {
    out.push({ resourceId: holderId, type: 'MISSING_PROOF_OF_ADDRESS_DOCUMENT', acceptedDocumentTypes: PROOF_OF_ADDRESS_TYPES, reason: 'Upload a proof of address dated within the last 3 months.' });
  }
}

/** Fields the platform's currencies require (`providerRequiredCustomerFields` of GET /config), as customer paths. */
function providerFieldGaps(platform: Platform, customer: CustomerRecord, out: VerificationError[]): void {
  const required = new Set<string>();
  for (const currency of platform.config.supportedCurrencies) {
    if (customer.currencies.includes(currency.currencyCode)) for (const field of currency.providerRequiredCustomerFields ?? []) required.add(field);
  }
  const p = customer.profile;
  const individual = customer.customerType === 'INDIVIDUAL';
  const seen = new Set(out.map((e) => e.field));
  const need = (field: string, value: unknown, why: string) => {
    if (isBlank(value) && !seen.has(field)) {
      seen.add(field);
      out.push(missingField(customer.id, field, why));
    }
  };
  for (const name of required) {
    const why = `is required by the platform's currencies (${name})`;
    if (name === 'BIRTH_DATE' && individual) need('birthDate', p.birthDate, why);
    if (name === 'NATIONALITY' && individual) need('nationality', p.nationality, why);
    if (name === 'PHONE_NUMBER') need('phoneNumber', p.phoneNumber, why);
    if (name === 'EMAIL') need('email', p.email, why);
    if (name === 'FULL_NAME' && individual) need('fullName', p.fullName, why);
    if (name === 'POSTAL_ADDRESS' || name === 'COUNTRY_OF_RESIDENCE') {
      for (const key of name === 'POSTAL_ADDRESS' ? ['line1', 'postalCode', 'country'] : ['country']) need(`address.${key}`, p.address?.[key], why);
    }
  }
}

function contactGaps(customer: CustomerRecord, out: VerificationError[]): void {
  // API.md Customer: email/phone are required before verification in regions that verify a contact channel.
  if (customer.region && EU_COUNTRIES.has(customer.region) && isBlank(customer.profile.email) && isBlank(customer.profile.phoneNumber)) {
    out.push(missingField(customer.id, 'email', 'or phoneNumber is required in a region that verifies contact channels'));
  }
}

function individualGaps(ctx: SandboxContext, platform: Platform, customer: CustomerRecord, docs: DocumentRow[]): VerificationError[] {
  const out: VerificationError[] = [];
  const p = customer.profile;
  for (const field of ['fullName', 'birthDate', 'nationality']) if (isBlank(p[field])) out.push(missingField(customer.id, field));
  const usPerson = customer.region === 'US' || p.nationality === 'US' || p.address?.country === 'US';
  if (usPerson) {
    if (isBlank(p.idType)) out.push(missingField(customer.id, 'idType', 'is required to onboard a US account holder (SSN or ITIN)'));
    if (isBlank(p.identifier)) out.push(missingField(customer.id, 'identifier', 'is required to onboard a US account holder'));
  }
  addressGaps(customer.id, 'address.', p.address, out);
  contactGaps(customer, out);
  providerFieldGaps(platform, customer, out);
  identityGaps(customer.id, docs, false, out);
  proofOfAddressGaps(ctx, customer.id, docs, customer.region !== undefined && EU_COUNTRIES.has(customer.region), out);
  return out;
}

function businessInfoGaps(platform: Platform, customer: CustomerRecord): VerificationError[] {
  const out: VerificationError[] = [];
  const info = customer.profile.businessInfo ?? {};
  for (const field of ['legalName', 'country', 'taxId', 'incorporatedOn', 'registrationNumber']) {
    if (isBlank(info[field])) out.push(missingField(customer.id, `businessInfo.${field}`));
  }
  addressGaps(customer.id, 'address.', customer.profile.address, out);
  contactGaps(customer, out);
  if (customer.region && EU_COUNTRIES.has(customer.region)) {
    // API.md businessInfo: where a named representative is verified first (the EU).
    for (const field of ['primaryContactFirstName', 'primaryContactLastName']) {
      if (isBlank(info[field])) out.push(missingField(customer.id, `businessInfo.${field}`, 'is required where a named representative is verified first'));
    }
  }
  providerFieldGaps(platform, customer, out);
  return out;
}

function businessPacketGaps(ctx: SandboxContext, customer: CustomerRecord, owners: OwnerRow[], docs: DocumentRow[]): VerificationError[] {
  const out: VerificationError[] = [];
  const own = docs.filter((d) => d.document_holder === customer.id);
  const has = (types: DocumentType[]) => own.some((d) => types.includes(d.document_type as DocumentType));
  const packet: [string, DocumentType[], string][] = [
    ['MISSING_LEGAL_PRESENCE_DOCUMENT', LEGAL_PRESENCE_TYPES, 'Upload a company formation document.'],
    ['MISSING_OWNERSHIP_STRUCTURE_DOCUMENT', OWNERSHIP_STRUCTURE_TYPES, 'Upload a document showing the ownership structure.'],
    ['MISSING_CONTROL_STRUCTURE_DOCUMENT', CONTROL_STRUCTURE_TYPES, 'Upload a document showing who controls the company.'],
  ];
  for (const [type, accepted, reason] of packet) if (!has(accepted)) out.push({ resourceId: customer.id, type, acceptedDocumentTypes: accepted, reason });
  proofOfAddressGaps(ctx, customer.id, docs, true, out);
  // API.md Limits: every owner at 25 % or more, plus one control person.
  const listed = owners.reduce((sum, o) => sum + o.ownership_percentage, 0);
  if (100 - listed >= 25) {
    out.push({
      resourceId: customer.id,
      type: 'MISSING_BENEFICIAL_OWNER',
      reason: `Owners listed hold ${listed} %; every person owning 25 % or more must be added (POST /beneficial-owners).`,
    });
  }
  if (!owners.some((o) => (JSON.parse(o.roles) as string[]).some((r) => CONTROL_ROLES.has(r)))) {
    out.push({ resourceId: customer.id, type: 'MISSING_CONTROL_PERSON', reason: 'Add one control person (a beneficial owner with role CONTROL_PERSON, DIRECTOR or COMPANY_OFFICER).' });
  }
  for (const owner of owners) {
    const roles = JSON.parse(owner.roles) as string[];
    if (owner.ownership_percentage < 25 && !roles.some((r) => CONTROL_ROLES.has(r))) continue;
    const info = JSON.parse(owner.personal_info) as Record<string, any>;
    identityGaps(owner.id, docs, info.nationality !== 'US', out);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Verification: state machine
// ---------------------------------------------------------------------------------------------

/** The contract's `Verification`. */
export function presentVerification(row: VerificationRow): Record<string, unknown> {
  return {
    id: row.id,
    customerId: row.customer_id,
    verificationStatus: row.verification_status,
    errors: JSON.parse(row.errors) as unknown,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function recordVerification(ctx: SandboxContext, platform: Platform, customerId: string, status: VerificationStatus, errors: VerificationError[]): VerificationRow {
  const now = ctx.clock.iso();
  const row: VerificationRow = {
    id: ctx.ids.next('Verification'),
    platform_id: platform.id,
    customer_id: customerId,
    verification_status: status,
    errors: JSON.stringify(errors),
    created_at: now,
    updated_at: now,
  };
  kycRepo(ctx).insertVerification(row);
  ctx.outbox.append(platform.id, `VERIFICATION.${status}`, row.id, presentVerification(row));
  return row;
}

function moveVerification(ctx: SandboxContext, platform: Platform, row: VerificationRow, status: VerificationStatus, errors?: VerificationError[]): VerificationRow {
  const next: VerificationRow = { ...row, verification_status: status, errors: errors ? JSON.stringify(errors) : row.errors, updated_at: ctx.clock.iso() };
  kycRepo(ctx).updateVerification(next);
  ctx.outbox.append(platform.id, `VERIFICATION.${status}`, next.id, presentVerification(next));
  return next;
}

function resolveOwners(ctx: SandboxContext, owners: OwnerRow[]): OwnerRow[] {
  const now = ctx.clock.iso();
  return owners.map((owner) => {
    const info = JSON.parse(owner.personal_info) as { lastName?: string };
    // sandbox-rules.md: owners are resolved with their business, by the lastName suffix.
    const status = ownerOutcome(ctx, owner.platform_id, info.lastName);
    if (status === owner.kyc_status) return owner;
    const next = { ...owner, kyc_status: status, updated_at: now };
    kycRepo(ctx).updateOwner(next);
    return next;
  });
}

/** Moves the customer to PENDING (review begins) unless it already is. */
function beginReview(ctx: SandboxContext, platform: Platform, customer: CustomerRecord): void {
  if (customer.kycStatus !== 'PENDING') setCustomerStatus(ctx, platform, customer.id, 'PENDING');
}

/**
 * `POST /verifications`: submits a customer. Validates the packet (every gap in `errors`),
 * then applies the sandbox suffix rules: RESOLVE_ERRORS, PENDING_MANUAL_REVIEW, IN_PROGRESS
 * (automatic approval on the clock), APPROVED or REJECTED. `400` once APPROVED or REJECTED.
 */
export function createVerification(ctx: SandboxContext, platform: Platform, customerId: string): VerificationRow {
  return ctx.tx(() => {
    const customer = getCustomer(ctx, platform.id, customerId);
    const what = customer.customerType === 'INDIVIDUAL' ? 'KYC' : 'KYB';
    if (customer.kycStatus === 'APPROVED' || customer.kycStatus === 'REJECTED') {
      throw invalidInput(`Customer ${customerId} is already ${customer.kycStatus}; ${what} cannot be submitted again.`, [
        { field: 'customerId', message: `${what} status is ${customer.kycStatus}.` },
      ]);
    }
    const repo = kycRepo(ctx);
    const previous = repo.verificationsOf(platform.id, customerId);
    const latest = previous.at(-1);
    if (customer.kycStatus !== 'HOLD' && latest && (latest.verification_status === 'IN_PROGRESS' || latest.verification_status === 'PENDING_MANUAL_REVIEW')) {
      throw invalidInput(`Customer ${customerId} is already under review (verification ${latest.id} is ${latest.verification_status}); wait for its outcome.`, [
        { field: 'customerId', message: `Verification ${latest.id} is ${latest.verification_status}.` },
      ]);
    }
    const seen = new Set<string>();
    const terminal = previous
      .flatMap((v) => JSON.parse(v.errors) as VerificationError[])
      .filter((e) => TERMINAL_TYPES.has(e.type))
      .filter((e) => (seen.has(`${e.type}:${e.resourceId}`) ? false : (seen.add(`${e.type}:${e.resourceId}`), true)));
    if (terminal.length > 0) {
      // API.md remediation table: terminal compliance outcomes are not cleared by re-submission.
      const row = recordVerification(ctx, platform, customerId, 'REJECTED', terminal);
      setCustomerStatus(ctx, platform, customerId, 'REJECTED');
      return row;
    }
    const docs = repo.documentsOfCustomer(platform.id, customerId);
    return customer.customerType === 'INDIVIDUAL'
      ? verifyIndividual(ctx, platform, customer, docs, previous)
      : verifyBusiness(ctx, platform, customer, docs);
  });
}

function verifyIndividual(ctx: SandboxContext, platform: Platform, customer: CustomerRecord, docs: DocumentRow[], previous: VerificationRow[]): VerificationRow {
  const errors = individualGaps(ctx, platform, customer, docs);
  if (errors.length > 0) return recordVerification(ctx, platform, customer.id, 'RESOLVE_ERRORS', errors);
  // sandbox-rules.md "Customers at creation": the fullName suffix decides what a complete submission does.
  const rule = individualVerificationRule[suffixOf(customer.profile.fullName)];
  if (rule === 'POOR_QUALITY_DOCUMENT') {
    const flaggedBefore = previous.some((v) => (JSON.parse(v.errors) as VerificationError[]).some((e) => e.type === 'POOR_QUALITY_DOCUMENT'));
    if (!flaggedBefore) {
      const identity = docs.filter((d) => d.document_holder === customer.id && IDENTITY_TYPES.includes(d.document_type as DocumentType));
      const newest = identity.at(-1)!;
      kycRepo(ctx).flagDocument(newest.id);
      return recordVerification(ctx, platform, customer.id, 'RESOLVE_ERRORS', [
        {
          resourceId: newest.id,
          type: 'POOR_QUALITY_DOCUMENT',
          acceptedDocumentTypes: IDENTITY_TYPES,
          reason: 'The document image is not clear enough to read; upload a replacement (PUT /documents/{id}).',
        },
      ]);
    }
  }
  if (rule === 'MANUAL_REVIEW') {
    beginReview(ctx, platform, customer);
    return recordVerification(ctx, platform, customer.id, 'PENDING_MANUAL_REVIEW', []);
  }
  return startAutomaticReview(ctx, platform, customer);
}

function startAutomaticReview(ctx: SandboxContext, platform: Platform, customer: CustomerRecord): VerificationRow {
  beginReview(ctx, platform, customer);
  const row = recordVerification(ctx, platform, customer.id, 'IN_PROGRESS', []);
  ctx.scheduler.schedule(platform.id, REVIEW_JOB, AUTOMATIC_REVIEW_SECONDS * 1000, { verificationId: row.id });
  return row;
}

function rejectWith(ctx: SandboxContext, platform: Platform, customerId: string, errors: VerificationError[]): VerificationRow {
  const row = recordVerification(ctx, platform, customerId, 'REJECTED', errors);
  setCustomerStatus(ctx, platform, customerId, 'REJECTED');
  return row;
}

const applicantRejected = (resourceId: string, reason: string): VerificationError => ({ resourceId, type: 'APPLICANT_REJECTED', reason });

function verifyBusiness(ctx: SandboxContext, platform: Platform, customer: CustomerRecord, docs: DocumentRow[]): VerificationRow {
  const registration = customer.profile.businessInfo?.registrationNumber as string | undefined;
  // sandbox-rules.md "Businesses (KYB)": the registrationNumber suffix decides.
  const rule = businessVerificationRule[suffixOf(registration)] ?? businessDefaultRule;
  const owners = kycRepo(ctx).ownersOf(platform.id, customer.id);
  if (platform.settings.paperworkSkipping && rule !== 'VALIDATE') {
    // With paperwork skipping the suffix resolves before packet validation.
    recordRule(ctx, platform.id, paperworkSkippingRules.id('resolved'));
    recordRule(ctx, platform.id, registrationNumberRules.of(suffixOf(registration)));
    resolveOwners(ctx, owners);
    if (rule === 'REJECT') return rejectWith(ctx, platform, customer.id, [applicantRejected(customer.id, 'The business did not pass KYB review.')]);
    const row = recordVerification(ctx, platform, customer.id, 'APPROVED', []);
    setCustomerStatus(ctx, platform, customer.id, 'APPROVED');
    return row;
  }
  const errors = businessInfoGaps(platform, customer);
  if (!platform.settings.paperworkSkipping) errors.push(...businessPacketGaps(ctx, customer, owners, docs));
  if (errors.length > 0) return recordVerification(ctx, platform, customer.id, 'RESOLVE_ERRORS', errors);
  // A complete packet: the registrationNumber suffix decides from here.
  recordRule(ctx, platform.id, registrationNumberRules.of(suffixOf(registration)));
  const resolved = resolveOwners(ctx, owners);
  const rejectedOwners = resolved.filter((o) => o.kyc_status === 'REJECTED');
  if (rejectedOwners.length > 0) {
    return rejectWith(ctx, platform, customer.id, rejectedOwners.map((o) => applicantRejected(o.id, 'This beneficial owner did not pass KYC review.')));
  }
  if (rule === 'REJECT') return rejectWith(ctx, platform, customer.id, [applicantRejected(customer.id, 'The business did not pass KYB review.')]);
  if (suffixOf(registration) === '001' || resolved.some((o) => o.kyc_status === 'PENDING')) {
    beginReview(ctx, platform, customer);
    return recordVerification(ctx, platform, customer.id, 'PENDING_MANUAL_REVIEW', []);
  }
  return startAutomaticReview(ctx, platform, customer);
}

/** The automatic review finishing: an IN_PROGRESS verification and its customer become APPROVED. */
function finishAutomaticReview(ctx: SandboxContext, platformId: string, verificationId: string): void {
  const platform = platformService(ctx).byId(platformId);
  const row = platform ? kycRepo(ctx).verificationById(platformId, verificationId) : undefined;
  if (!platform || !row || row.verification_status !== 'IN_PROGRESS') return;
  moveVerification(ctx, platform, row, 'APPROVED', []);
  setCustomerStatus(ctx, platform, row.customer_id, 'APPROVED');
}

/** Registers the automatic-review job. */
export function registerKycJobs(ctx: SandboxContext): void {
  ctx.scheduler.register(REVIEW_JOB, (job) => {
    const payload = job.payload as { verificationId: string };
    finishAutomaticReview(ctx, job.platformId, payload.verificationId);
  });
}

/**
 * A manual decision (CLI, hosted flow, `sandbox.decideKyc`), through the same path as a provider
 * decision. The customer and its verification always move together: APPROVED and REJECTED move
 * the open verification (or record one when none is open; REJECTED carries the terminal
 * `APPLICANT_REJECTED`); HOLD moves an automatic review (`IN_PROGRESS`) to
 * `PENDING_MANUAL_REVIEW` so no timer approves a held customer.
 *
 * A decision is final (API.md "Customer verification status": APPROVED and REJECTED are where a
 * review ends; nothing leads out of them): once the customer is APPROVED or REJECTED, however it
 * got there, any further decision (approve, reject or hold, the same one included) is
 * `409 CONFLICT` naming the current status, and nothing is written. HOLD may be repeated.
 * Returns the customer's latest verification, if any.
 */
export function decideKyc(ctx: SandboxContext, platform: Platform, customerId: string, decision: KycDecision): VerificationRow | undefined {
  return ctx.tx(() => {
    const customer = getCustomer(ctx, platform.id, customerId);
    const repo = kycRepo(ctx);
    const latest = repo.verificationsOf(platform.id, customerId).at(-1);
    const what = customer.customerType === 'INDIVIDUAL' ? 'KYC' : 'KYB';
    const statusField = customer.customerType === 'INDIVIDUAL' ? 'kycStatus' : 'kybStatus';
    if (customer.kycStatus === 'APPROVED' || customer.kycStatus === 'REJECTED') {
      const tryInstead =
        customer.customerType === 'INDIVIDUAL'
          ? 'an individual whose fullName ends in 001 starts PENDING and awaits a decision'
          : 'a business starts UNVERIFIED until a verification or a decision';
      throw new ApiError(
        409,
        ErrorCode.CONFLICT,
        `Customer ${customerId} is already ${customer.kycStatus}: a ${what} decision is final, so it cannot become ${decision}. To try a decision, use a customer still under review (${tryInstead}).`,
        { [statusField]: customer.kycStatus, decision },
      );
    }
    const refuse = (why: string) => new ApiError(409, ErrorCode.CONFLICT, `Customer ${customerId} cannot become ${decision}: ${why}`, { [statusField]: customer.kycStatus, decision });
    // Terminal outcomes survive (API.md remediation table), whatever the customer's status says.
    const terminal = repo.verificationsOf(platform.id, customerId).some((v) => (JSON.parse(v.errors) as VerificationError[]).some((e) => TERMINAL_TYPES.has(e.type)));
    if (decision === 'APPROVED' && terminal) {
      throw refuse(`its ${what} was REJECTED with a terminal outcome (APPLICANT_REJECTED), which no later decision clears.`);
    }
    const open = latest && OPEN_STATUSES.has(latest.verification_status) ? latest : undefined;
    if (decision === 'HOLD') {
      setCustomerStatus(ctx, platform, customerId, 'HOLD');
      return open?.verification_status === 'IN_PROGRESS' ? moveVerification(ctx, platform, open, 'PENDING_MANUAL_REVIEW') : latest;
    }
    // API.md "Customer verification status": a decision follows review, so the customer passes through PENDING.
    beginReview(ctx, platform, customer);
    let result: VerificationRow;
    if (decision === 'APPROVED') {
      result = open ? moveVerification(ctx, platform, open, 'APPROVED', []) : recordVerification(ctx, platform, customerId, 'APPROVED', []);
      for (const owner of repo.ownersOf(platform.id, customerId)) {
        if (owner.kyc_status !== 'APPROVED' && owner.kyc_status !== 'REJECTED') repo.updateOwner({ ...owner, kyc_status: 'APPROVED', updated_at: ctx.clock.iso() });
      }
    } else {
      const error = applicantRejected(customer.id, 'The applicant was rejected by a compliance reviewer.');
      result = open ? moveVerification(ctx, platform, open, 'REJECTED', [error]) : recordVerification(ctx, platform, customerId, 'REJECTED', [error]);
    }
    setCustomerStatus(ctx, platform, customerId, decision);
    return result;
  });
}

/** `GET /verifications/{id}`. */
export function getVerification(ctx: SandboxContext, platform: Platform, id: string): VerificationRow {
  const row = kycRepo(ctx).verificationById(platform.id, id);
  if (!row) throw notFound(REFERENCE_NOT_FOUND, `No verification ${id} on this platform.`);
  return row;
}

/** `GET /verifications`. */
export function listVerifications(
  ctx: SandboxContext,
  platform: Platform,
  query: { customerId?: string | undefined; verificationStatus?: string | undefined; limit: number; cursor?: string | undefined },
): Page<Record<string, unknown>> {
  const repo = kycRepo(ctx);
  return paginate(
    query,
    (r) => repo.verificationPage(platform.id, query.customerId, query.verificationStatus, r),
    () => repo.verificationCount(platform.id, query.customerId, query.verificationStatus),
    (row) => row.id,
    presentVerification,
  );
}

/** The gaps a customer's packet has right now, without submitting it (the hosted flow shows them). */
export function currentGaps(ctx: SandboxContext, platform: Platform, customerId: string): VerificationError[] {
  const customer = getCustomer(ctx, platform.id, customerId);
  const repo = kycRepo(ctx);
  const docs = repo.documentsOfCustomer(platform.id, customerId);
  if (customer.customerType === 'INDIVIDUAL') return individualGaps(ctx, platform, customer, docs);
  const errors = businessInfoGaps(platform, customer);
  if (!platform.settings.paperworkSkipping) errors.push(...businessPacketGaps(ctx, customer, repo.ownersOf(platform.id, customerId), docs));
  return errors;
}
