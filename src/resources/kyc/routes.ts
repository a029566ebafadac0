import { ApiError, invalidInput } from '../../core/errors.js';
import type { AppContext } from '../../server/env.js';
import { idempotent } from '../../server/idempotency.js';
import { jsonBody, parseWith, queryOf } from '../../server/validate.js';
import { readMultipartFile } from '../../server/multipart.js';
import type { OperationHandlers } from '../area.js';
import {
  documentFields,
  documentListQuery,
  documentUploadFields,
  kycLinkCreate,
  ownerCreate,
  ownerListQuery,
  ownerUpdate,
  verificationCreate,
  verificationListQuery,
} from './schemas.js';
import {
  createOwner,
  createVerification,
  deleteDocument,
  getDocument,
  getOwner,
  getVerification,
  listDocuments,
  listOwners,
  listVerifications,
  presentDocument,
  presentOwner,
  presentVerification,
  replaceDocument,
  updateOwner,
  uploadDocument,
  type UploadedFile,
} from './service.js';
import { createKycLink, originOf } from './links.js';

/** A multipart body: a 10 MB file plus room for the form fields and part headers. */
const MAX_MULTIPART_BYTES = 10 * 1024 * 1024 + 64 * 1024;

/** Reads a multipart form: its text fields and its `file` part. */
async function multipart(c: AppContext): Promise<{ fields: Record<string, string>; file: UploadedFile | undefined }> {
  const type = c.req.header('Content-Type') ?? '';
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    throw invalidInput('Send the document as multipart/form-data.', [{ field: '(body)', constraint: { format: 'multipart/form-data' }, message: 'Use a multipart form with a "file" part.' }]);
  }
  // API.md Limits: 10 MB per document; a body far beyond that is refused before it is read.
  const length = Number(c.req.header('Content-Length') ?? 0);
  if (length > MAX_MULTIPART_BYTES) {
    throw invalidInput('The upload is larger than 10 MB.', [{ field: 'file', constraint: { maxLength: 10 * 1024 * 1024 }, message: 'Upload a file of 10 MB or less.' }]);
  }
  let file: UploadedFile | undefined;
  let fields: Record<string, string>;
  try {
    // Read as it streams in (a 10 MB form parsed whole at the end held the event loop 25-67 ms).
    const form = await readMultipartFile(c, 'file', { files: 4 });
    fields = form.fields;
    if (form.file) file = { name: form.file.filename || 'upload', declaredType: form.file.mimeType, bytes: form.file.bytes };
  } catch (error) {
    // A chunked upload past the limit fails its stream with the limit's own answer.
    if (error instanceof ApiError) throw error;
    throw invalidInput('The multipart body could not be read.', [{ field: '(body)', constraint: { format: 'multipart/form-data' }, message: 'Send a well-formed multipart form.' }]);
  }
  if (!file && typeof fields.file === 'string') {
    throw invalidInput('The file part must be a file, not a text field.', [{ field: 'file', constraint: { format: 'binary' }, message: 'Attach the document as a file part.' }]);
  }
  return { fields, file };
}

/** KYC/KYB Verifications and Documents operations. */
export const handlers: OperationHandlers = {
  createBeneficialOwner: async (c) => {
    const input = await jsonBody(c, ownerCreate);
    return c.json(presentOwner(createOwner(c.get('ctx'), c.get('platform'), input)), 201);
  },
  listBeneficialOwners: (c) => c.json(listOwners(c.get('ctx'), c.get('platform'), queryOf(c, ownerListQuery))),
  getBeneficialOwner: (c) => c.json(presentOwner(getOwner(c.get('ctx'), c.get('platform'), c.req.param('beneficialOwnerId')!))),
  updateBeneficialOwner: async (c) => {
    const input = await jsonBody(c, ownerUpdate);
    return c.json(presentOwner(updateOwner(c.get('ctx'), c.get('platform'), c.req.param('beneficialOwnerId')!, input)));
  },
  uploadDocument: async (c) => {
    const { fields, file } = await multipart(c);
    const input = parseWith(documentUploadFields, fields, 'document');
    return c.json(presentDocument(uploadDocument(c.get('ctx'), c.get('platform'), input, file)), 201);
  },
  listDocuments: (c) => c.json(listDocuments(c.get('ctx'), c.get('platform'), queryOf(c, documentListQuery))),
  getDocument: (c) => c.json(presentDocument(getDocument(c.get('ctx'), c.get('platform'), c.req.param('documentId')!))),
  replaceDocument: async (c) => {
    const id = c.req.param('documentId')!;
    getDocument(c.get('ctx'), c.get('platform'), id);
    const { fields, file } = await multipart(c);
    const input = parseWith(documentFields, fields, 'document');
    return c.json(presentDocument(replaceDocument(c.get('ctx'), c.get('platform'), id, input, file)));
  },
  deleteDocument: (c) => {
    deleteDocument(c.get('ctx'), c.get('platform'), c.req.param('documentId')!);
    return c.body(null, 204);
  },
  createVerification: async (c) => {
    const { customerId } = await jsonBody(c, verificationCreate);
    return c.json(presentVerification(createVerification(c.get('ctx'), c.get('platform'), customerId)));
  },
  listVerifications: (c) => c.json(listVerifications(c.get('ctx'), c.get('platform'), queryOf(c, verificationListQuery))),
  getVerification: (c) => c.json(presentVerification(getVerification(c.get('ctx'), c.get('platform'), c.req.param('verificationId')!))),
  createCustomerKycLink: async (c) => {
    const input = await jsonBody(c, kycLinkCreate, { optional: true });
    const customerId = c.req.param('customerId')!;
    const origin = originOf(c.req.url);
    return idempotent(c, 'createCustomerKycLink', { customerId, ...input }, () => ({
      status: 201,
      body: createKycLink(c.get('ctx'), c.get('platform'), customerId, input.redirectUri, origin),
    }));
  },
};
