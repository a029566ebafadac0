import { describe, expect, it } from 'vitest';
import { assertErrorEnvelope, assertFitsWebhook } from '../helpers/contract.js';
import { unique, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();

const PDF = new Uint8Array([...Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1')]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);

const consent = { acceptedAt: '2025-10-20T10:00:00Z', ipAddress: '203.0.113.7', termsVersion: '2025-10-13', acceptanceMethod: 'CHECKBOX' };
const usAddress = { line1: '123 Market Street', city: 'Seattle', state: 'WA', postalCode: '98101', country: 'US' };
const fields = (body: { details?: { errors?: { field: string }[] } }) => (body.details?.errors ?? []).map((e) => e.field);
const types = (body: { errors: { type: string }[] }) => body.errors.map((e) => e.type).sort();

function form(values: Record<string, string | undefined>, file?: { bytes: Uint8Array; name: string; type?: string }): FormData {
  const data = new FormData();
  for (const [key, value] of Object.entries(values)) if (value !== undefined) data.append(key, value);
  if (file) data.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }), file.name);
  return data;
}

async function upload(api: Api, values: Record<string, string | undefined>, file: { bytes: Uint8Array; name: string; type?: string } = { bytes: JPEG, name: 'scan.jpg', type: 'image/jpeg' }, unchecked = false) {
  return api.request('POST', '/documents', { rawBody: form(values, file), unchecked });
}

const passport = (holder: string, country = 'US') => ({ documentHolder: holder, documentType: 'PASSPORT', country, documentNumber: 'X1234567', issuingAuthority: 'U.S. Department of State' });

async function events(api: Api, resourceId: string, type?: string): Promise<{ id: string; type: string; timestamp: string; data: any }[]> {
  const res = await api.get(`/_sandbox/webhooks/deliveries?resourceId=${encodeURIComponent(resourceId)}${type ? `&type=${type}` : ''}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function decide(api: Api, customerId: string, decision: string) {
  const res = await api.post(`/_sandbox/customers/${customerId}/kyc-decision`, { decision });
  expect(res.status).toBe(200);
  return res.body;
}

const individual = (fullName: string, extra: Record<string, unknown> = {}) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: unique('ind'),
  fullName,
  currencies: ['USD'],
  endUserTermsConsent: consent,
  ...extra,
});

const completeUs = { birthDate: '1990-01-15', nationality: 'US', idType: 'SSN', identifier: '123-45-6789', address: usAddress, email: 'jane@example.com' };

describe('documents', () => {
  it('uploads, gets, lists, replaces and deletes a document', async () => {
    const api = await s.api.newPlatform();
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith' })).body;
    const res = await upload(api, passport(customer.id), { bytes: PDF, name: 'passport.pdf', type: 'application/pdf' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ documentHolder: customer.id, documentType: 'PASSPORT', country: 'US', documentNumber: 'X1234567', fileName: 'passport.pdf' });
    expect(res.body.id).toMatch(/^Document:/);
    expect((await api.get(`/documents/${res.body.id}`)).body).toEqual(res.body);
    expect((await api.get(`/documents?documentHolder=${customer.id}`)).body.totalCount).toBe(1);
    const replaced = await api.request('PUT', `/documents/${res.body.id}`, {
      rawBody: form({ documentType: 'PASSPORT', country: 'US', documentNumber: 'Y7654321', issuingAuthority: 'U.S. Department of State' }, { bytes: PNG, name: 'passport.png', type: 'image/png' }),
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: res.body.id, documentNumber: 'Y7654321', fileName: 'passport.png' });
    const other = await s.api.newPlatform();
    expect((await other.get(`/documents/${res.body.id}`)).status).toBe(404);
    expect((await other.delete(`/documents/${res.body.id}`)).status).toBe(404);
    expect((await api.delete(`/documents/${res.body.id}`)).status).toBe(204);
    expect((await api.get(`/documents/${res.body.id}`)).status).toBe(404);
    const unknownHolder = await upload(api, passport('Customer:nope'));
    expect(unknownHolder.status).toBe(404);
  });

  it('judges the file by its bytes: a text file renamed .pdf is refused', async () => {
    const api = await s.api.newPlatform();
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith' })).body;
    const fake = await upload(api, passport(customer.id), { bytes: new TextEncoder().encode('just some text, not a PDF'), name: 'passport.pdf', type: 'application/pdf' });
    expect(fake.status).toBe(400);
    expect(fields(fake.body)).toEqual(['file']);
    const gif = await upload(api, passport(customer.id), { bytes: new TextEncoder().encode('GIF89a....'), name: 'photo.jpg', type: 'image/jpeg' });
    expect(gif.status).toBe(400);
    expect((await api.get(`/documents?documentHolder=${customer.id}`)).body.totalCount).toBe(0);
  });

  it('refuses a file over 10 MB', async () => {
    const api = await s.api.newPlatform();
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith' })).body;
    const big = new Uint8Array(11 * 1024 * 1024);
    big.set(PDF);
    const res = await upload(api, passport(customer.id), { bytes: big, name: 'passport.pdf', type: 'application/pdf' });
    expect(res.status).toBe(400);
    expect(res.body.details.errors[0]).toMatchObject({ field: 'file', constraint: { maxLength: 10 * 1024 * 1024 } });
    const huge = new Uint8Array(40 * 1024 * 1024);
    huge.set(PDF);
    const early = await upload(api, passport(customer.id), { bytes: huge, name: 'passport.pdf', type: 'application/pdf' });
    expect(early.status).toBe(400);
    expect(early.body.details.errors[0].field).toBe('file');
    const exact = new Uint8Array(10 * 1024 * 1024);
    exact.set(PDF);
    expect((await upload(api, passport(customer.id), { bytes: exact, name: 'passport.pdf', type: 'application/pdf' })).status).toBe(201);
  });

  it('needs documentNumber and issuingAuthority for identity documents and a side for two-sided ones; no file is 400', async () => {
    const api = await s.api.newPlatform();
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith' })).body;
    const res = await upload(api, { documentHolder: customer.id, documentType: 'DRIVERS_LICENSE', country: 'US' });
    expect(res.status).toBe(400);
    expect(fields(res.body).sort()).toEqual(['documentNumber', 'issuingAuthority', 'side']);
    const noFile = await api.request('POST', '/documents', { rawBody: form(passport(customer.id)) });
    expect(noFile.status).toBe(400);
    expect(fields(noFile.body)).toEqual(['file']);
    const badType = await upload(api, { ...passport(customer.id), documentType: 'SELFIE_STICK', country: 'XX' });
    expect(fields(badType.body).sort()).toEqual(['country', 'documentType']);
    const json = await api.post('/documents', passport(customer.id));
    expect(json.status).toBe(400);
    expect((await upload(api, { documentHolder: customer.id, documentType: 'UTILITY_BILL', country: 'US' }, { bytes: PDF, name: 'bill.pdf' })).status).toBe(201);
  });

  it('422 DOCUMENT_REJECTED for an unusable photo (sandbox trigger: file name ending in 422)', async () => {
    const api = await s.api.newPlatform();
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith' })).body;
    // The contract lists no 422 for uploadDocument; API.md governs and names it, so the envelope is checked by hand.
    const res = await upload(api, passport(customer.id), { bytes: JPEG, name: 'passport-422.jpg', type: 'image/jpeg' }, true);
    expect(res.status).toBe(422);
    assertErrorEnvelope(res.body, 422);
    expect(res.body.code).toBe('DOCUMENT_REJECTED');
    expect(res.body.details.reason).toBe('LOW_QUALITY');
    expect((await api.get(`/documents?documentHolder=${customer.id}`)).body.totalCount).toBe(0);
  });
});

describe('document rejection reasons by file name', () => {
  it.each([
    ['423', 'DATA_MISMATCH'],
    ['424', 'EXPIRED'],
    ['425', 'SUSPECTED_FRAUD'],
    ['426', 'UNSUITABLE_DOCUMENT'],
    ['427', 'INCOMPLETE'],
  ])('a file name ending %s is 422 DOCUMENT_REJECTED with reason %s, on upload and on replacement; nothing stored', async (suffix, reason) => {
    const api = await s.api.newPlatform();
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith' })).body;
    const res = await upload(api, passport(customer.id), { bytes: JPEG, name: `id-${suffix}.jpeg`, type: 'image/jpeg' }, true);
    expect(res.status).toBe(422);
    assertErrorEnvelope(res.body, 422);
    expect(res.body).toMatchObject({ code: 'DOCUMENT_REJECTED', details: { reason, fileName: `id-${suffix}.jpeg` } });
    expect((await api.get(`/documents?documentHolder=${customer.id}`)).body.totalCount).toBe(0);
    const stored = await upload(api, passport(customer.id), { bytes: JPEG, name: 'id.jpeg', type: 'image/jpeg' });
    expect(stored.status).toBe(201);
    const { documentHolder: _holder, ...fields } = passport(customer.id);
    const replaced = await api.request('PUT', `/documents/${stored.body.id}`, { rawBody: form(fields, { bytes: JPEG, name: `scan-${suffix}.jpg`, type: 'image/jpeg' }), unchecked: true });
    expect(replaced.status).toBe(422);
    expect(replaced.body.details.reason).toBe(reason);
    expect((await api.get(`/documents/${stored.body.id}`)).body.fileName).toBe('id.jpeg');
  });
});

describe('individual verification', () => {
  it('a 001 individual goes through fix-and-resubmit to PENDING_MANUAL_REVIEW, then a decision', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const created = await api.post('/customers', individual('Jane Doe001', { nationality: 'US' }));
    expect(created.body.kycStatus).toBe('PENDING');
    const id = created.body.id;
    const first = await api.post('/verifications', { customerId: id });
    expect(first.status).toBe(200);
    expect(first.body.verificationStatus).toBe('RESOLVE_ERRORS');
    const missing = first.body.errors.filter((e: { type: string }) => e.type === 'MISSING_FIELD').map((e: { field: string }) => e.field).sort();
    expect(missing).toEqual(['address.country', 'address.line1', 'address.postalCode', 'birthDate', 'idType', 'identifier']);
    for (const error of first.body.errors) expect(error.resourceId).toBe(id);
    const idDoc = first.body.errors.find((e: { type: string }) => e.type === 'MISSING_IDENTITY_DOCUMENT');
    expect(idDoc.acceptedDocumentTypes).toEqual(['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID']);

    const patched = await api.patch(`/customers/${id}`, { customerType: 'INDIVIDUAL', birthDate: '1990-01-15', idType: 'SSN', identifier: '123-45-6789', address: usAddress });
    expect(patched.status).toBe(200);
    const front = await upload(api, { documentHolder: id, documentType: 'DRIVERS_LICENSE', side: 'FRONT', country: 'US', documentNumber: 'D123', issuingAuthority: 'WA DOL' });
    const second = await api.post('/verifications', { customerId: id });
    expect(second.body.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(second.body.errors).toEqual([expect.objectContaining({ resourceId: front.body.id, type: 'INCOMPLETE_DOCUMENT', acceptedDocumentTypes: ['DRIVERS_LICENSE'] })]);
    await upload(api, { documentHolder: id, documentType: 'DRIVERS_LICENSE', side: 'BACK', country: 'US', documentNumber: 'D123', issuingAuthority: 'WA DOL' });
    const third = await api.post('/verifications', { customerId: id });
    expect(third.body.verificationStatus).toBe('PENDING_MANUAL_REVIEW');
    expect(third.body.errors).toEqual([]);
    expect((await api.get(`/customers/${id}`)).body.kycStatus).toBe('PENDING');
    // the packet under review cannot lose a document, nor be submitted twice
    expect((await api.delete(`/documents/${front.body.id}`)).status).toBe(409);
    const twice = await api.post('/verifications', { customerId: id });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toContain('under review');

    const list = await api.get(`/verifications?customerId=${id}`);
    expect(list.body.data.map((v: { verificationStatus: string }) => v.verificationStatus)).toEqual(['RESOLVE_ERRORS', 'RESOLVE_ERRORS', 'PENDING_MANUAL_REVIEW']);
    expect((await api.get(`/verifications?customerId=${id}&verificationStatus=RESOLVE_ERRORS`)).body.totalCount).toBe(2);
    expect((await api.get(`/verifications/${third.body.id}`)).body).toEqual(third.body);

    const decided = await decide(api, id, 'APPROVED');
    expect(decided.customer.kycStatus).toBe('APPROVED');
    expect(decided.verification.verificationStatus).toBe('APPROVED');
    const again = await api.post('/verifications', { customerId: id });
    expect(again.status).toBe(400);
    // the decision is final: a second one (even the same one) is a 409 naming the status, and writes nothing
    const eventsBefore = (await events(api, id)).length;
    for (const decision of ['REJECTED', 'HOLD', 'APPROVED']) {
      const refused = await api.post(`/_sandbox/customers/${id}/kyc-decision`, { decision });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'CONFLICT', details: { kycStatus: 'APPROVED', decision } });
      expect(refused.body.message).toContain(`is already APPROVED: a KYC decision is final, so it cannot become ${decision}`);
    }
    expect((await api.get(`/customers/${id}`)).body.kycStatus).toBe('APPROVED');
    expect((await api.get(`/verifications/${third.body.id}`)).body.verificationStatus).toBe('APPROVED');
    expect((await events(api, id)).length).toBe(eventsBefore);

    const statuses = (await events(api, id)).map((e) => e.type);
    expect(statuses).toEqual(expect.arrayContaining(['CUSTOMER.KYC_PENDING', 'CUSTOMER.KYC_APPROVED']));
    for (const event of await events(api, id)) assertFitsWebhook('customer-update', { id: event.id, type: event.type, timestamp: event.timestamp, data: event.data });
    const verificationEvents = await events(api, third.body.id);
    expect(verificationEvents.map((e) => e.type).sort()).toEqual(['VERIFICATION.APPROVED', 'VERIFICATION.PENDING_MANUAL_REVIEW']);
    for (const event of verificationEvents) assertFitsWebhook('verification-update', { id: event.id, type: event.type, timestamp: event.timestamp, data: event.data });
    expect((await events(api, first.body.id, 'VERIFICATION.RESOLVE_ERRORS'))[0]!.data.errors.length).toBeGreaterThan(0);
  });

  it('a 003 individual with complete data is asked for a better document, then approved on the clock', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const created = await api.post('/customers', individual('Jane Doe003', completeUs));
    expect(created.body.kycStatus).toBe('UNVERIFIED');
    const id = created.body.id;
    const doc = await upload(api, passport(id));
    const first = await api.post('/verifications', { customerId: id });
    expect(first.body.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(first.body.errors).toEqual([expect.objectContaining({ resourceId: doc.body.id, type: 'POOR_QUALITY_DOCUMENT' })]);
    const unchanged = await api.post('/verifications', { customerId: id });
    expect(types(unchanged.body)).toEqual(['POOR_QUALITY_DOCUMENT']);
    await api.request('PUT', `/documents/${doc.body.id}`, { rawBody: form({ documentType: 'PASSPORT', country: 'US', documentNumber: 'X1234567', issuingAuthority: 'U.S. Department of State' }, { bytes: PNG, name: 'sharp.png' }) });
    const fixed = await api.post('/verifications', { customerId: id });
    expect(fixed.body.verificationStatus).toBe('IN_PROGRESS');
    expect((await api.get(`/customers/${id}`)).body.kycStatus).toBe('PENDING');
    await api.advance(29);
    expect((await api.get(`/verifications/${fixed.body.id}`)).body.verificationStatus).toBe('IN_PROGRESS');
    await api.advance(2);
    expect((await api.get(`/verifications/${fixed.body.id}`)).body.verificationStatus).toBe('APPROVED');
    expect((await api.get(`/customers/${id}`)).body.kycStatus).toBe('APPROVED');
    expect((await events(api, fixed.body.id)).map((e) => e.type).sort()).toEqual(['VERIFICATION.APPROVED', 'VERIFICATION.IN_PROGRESS']);
  });

  it('002 individuals are rejected at creation and cannot be submitted; approved ones neither; 404 for unknown customers', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const rejected = await api.post('/customers', individual('Jane Doe002'));
    expect(rejected.body.kycStatus).toBe('REJECTED');
    const res = await api.post('/verifications', { customerId: rejected.body.id });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect((await events(api, rejected.body.id, 'CUSTOMER.KYC_REJECTED'))).toHaveLength(1);
    const approved = await api.post('/customers', individual('Jane Doe'));
    expect((await api.post('/verifications', { customerId: approved.body.id })).status).toBe(400);
    const unknown = await api.post('/verifications', { customerId: 'Customer:nope' });
    expect(unknown.status).toBe(404);
    expect((await api.get('/verifications/Verification:nope')).status).toBe(404);
  });

  it('EU individuals need contact data and a proof of address dated within 3 months', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const created = await api.post('/customers', individual('Anna Schmidt001', {
      currencies: ['EUR'], birthDate: '1985-04-02', nationality: 'DE', address: { line1: 'Unter den Linden 1', postalCode: '10117', city: 'Berlin', country: 'DE' },
    }));
    const id = created.body.id;
    await upload(api, passport(id, 'DE'));
    const first = await api.post('/verifications', { customerId: id });
    expect(types(first.body)).toEqual(['MISSING_FIELD', 'MISSING_PROOF_OF_ADDRESS_DOCUMENT']);
    expect(first.body.errors[0].field).toBe('email');
    await api.patch(`/customers/${id}`, { customerType: 'INDIVIDUAL', email: 'anna@example.de' });
    const bill = await upload(api, { documentHolder: id, documentType: 'UTILITY_BILL', country: 'DE' }, { bytes: PDF, name: 'bill.pdf' });
    await api.advance(100 * 24 * 3600);
    const stale = await api.post('/verifications', { customerId: id });
    expect(stale.body.errors).toEqual([expect.objectContaining({ resourceId: bill.body.id, type: 'EXPIRED_DOCUMENT' })]);
    await upload(api, { documentHolder: id, documentType: 'BANK_STATEMENT', country: 'DE' }, { bytes: PDF, name: 'statement.pdf' });
    const ok = await api.post('/verifications', { customerId: id });
    expect(types(ok.body)).toEqual(['EXPIRED_DOCUMENT']);
    await api.delete(`/documents/${bill.body.id}`);
    expect((await api.post('/verifications', { customerId: id })).body.verificationStatus).toBe('PENDING_MANUAL_REVIEW');
  });
});

const businessBody = (registrationNumber: string, extra: Record<string, unknown> = {}) => ({
  customerType: 'BUSINESS',
  platformCustomerId: unique('biz'),
  currencies: ['USD'],
  endUserTermsConsent: consent,
  businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber },
  ...extra,
});

const owner = (customerId: string, lastName: string, ownershipPercentage: number, roles: string[], nationality = 'US') => ({
  customerId,
  roles,
  ownershipPercentage,
  personalInfo: {
    firstName: 'Alex', lastName, birthDate: '1980-05-05', nationality, address: usAddress,
    idType: nationality === 'US' ? 'SSN' : 'NON_US_TAX_ID', identifier: nationality === 'US' ? '123-45-6789' : 'DE-998877',
  },
});

async function completePacket(api: Api, id: string, owners: { lastName: string; pct: number; roles: string[]; nationality?: string }[]) {
  for (const type of ['CERTIFICATE_OF_INCORPORATION', 'SHAREHOLDER_REGISTER', 'DIRECTOR_REGISTRY', 'UTILITY_BILL']) {
    expect((await upload(api, { documentHolder: id, documentType: type, country: 'US' }, { bytes: PDF, name: `${type.toLowerCase()}.pdf` })).status).toBe(201);
  }
  const ids: string[] = [];
  for (const o of owners) {
    const res = await api.post('/beneficial-owners', owner(id, o.lastName, o.pct, o.roles, o.nationality));
    expect(res.status).toBe(201);
    ids.push(res.body.id);
    await upload(api, passport(res.body.id, o.nationality ?? 'US'));
    if (o.nationality && o.nationality !== 'US') {
      await upload(api, { documentHolder: res.body.id, documentType: 'NATIONAL_ID', side: 'FRONT', country: o.nationality, documentNumber: 'N1', issuingAuthority: 'Bürgeramt' });
      await upload(api, { documentHolder: res.body.id, documentType: 'NATIONAL_ID', side: 'BACK', country: o.nationality, documentNumber: 'N1', issuingAuthority: 'Bürgeramt' });
    }
  }
  return ids;
}

describe('business verification (KYB)', () => {
  it('a 003 business packet: documents and owners collected until complete, then approved on the clock', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const created = await api.post('/customers', businessBody('REG-77003'));
    expect(created.body.kybStatus).toBe('UNVERIFIED');
    const id = created.body.id;
    const first = await api.post('/verifications', { customerId: id });
    expect(first.body.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(types(first.body)).toEqual([
      'MISSING_BENEFICIAL_OWNER', 'MISSING_CONTROL_PERSON', 'MISSING_CONTROL_STRUCTURE_DOCUMENT', 'MISSING_FIELD', 'MISSING_FIELD', 'MISSING_FIELD',
      'MISSING_LEGAL_PRESENCE_DOCUMENT', 'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT', 'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
    ]);
    await api.patch(`/customers/${id}`, { customerType: 'BUSINESS', address: usAddress });
    const ubo = await api.post('/beneficial-owners', owner(id, 'Smith', 60, ['UBO']));
    const second = await api.post('/verifications', { customerId: id });
    expect(types(second.body)).toEqual(expect.arrayContaining(['MISSING_BENEFICIAL_OWNER', 'MISSING_CONTROL_PERSON', 'MISSING_IDENTITY_DOCUMENT']));
    expect(second.body.errors.find((e: { type: string }) => e.type === 'MISSING_IDENTITY_DOCUMENT').resourceId).toBe(ubo.body.id);
    await upload(api, passport(ubo.body.id));
    const [controller] = await completePacket(api, id, [{ lastName: 'Müller', pct: 40, roles: ['CONTROL_PERSON', 'UBO'], nationality: 'DE' }]);
    const third = await api.post('/verifications', { customerId: id });
    expect(third.body.verificationStatus).toBe('IN_PROGRESS');
    expect((await api.get(`/customers/${id}`)).body.kybStatus).toBe('PENDING');
    expect((await api.get(`/beneficial-owners/${controller}`)).body.kycStatus).toBe('APPROVED');
    await api.advance(31);
    expect((await api.get(`/customers/${id}`)).body.kybStatus).toBe('APPROVED');
    const kyb = (await events(api, id)).map((e) => e.type).sort();
    expect(kyb).toEqual(['CUSTOMER.KYB_APPROVED', 'CUSTOMER.KYB_PENDING']);
  });

  it('a non-US owner needs a passport plus one more government id', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const id = (await api.post('/customers', businessBody('REG-1', { address: usAddress }))).body.id;
    await completePacket(api, id, [{ lastName: 'Smith', pct: 100, roles: ['UBO', 'DIRECTOR'] }]);
    const foreign = await api.patch(`/beneficial-owners/${(await api.get(`/beneficial-owners?customerId=${id}`)).body.data[0].id}`, { personalInfo: { nationality: 'FR' } });
    expect(foreign.status).toBe(200);
    expect(foreign.body.personalInfo.nationality).toBe('FR');
    expect(foreign.body.personalInfo.lastName).toBe('Smith');
    const res = await api.post('/verifications', { customerId: id });
    expect(res.body.errors).toEqual([expect.objectContaining({ resourceId: foreign.body.id, type: 'MISSING_IDENTITY_DOCUMENT', acceptedDocumentTypes: ['DRIVERS_LICENSE', 'NATIONAL_ID'] })]);
  });

  it('002 businesses are rejected after a complete packet; the decision is final: no HOLD, no resubmission', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const id = (await api.post('/customers', businessBody('REG-5002', { address: usAddress }))).body.id;
    expect((await api.post('/verifications', { customerId: id })).body.verificationStatus).toBe('RESOLVE_ERRORS');
    await completePacket(api, id, [{ lastName: 'Smith', pct: 100, roles: ['UBO', 'CONTROL_PERSON'] }]);
    const res = await api.post('/verifications', { customerId: id });
    expect(res.body.verificationStatus).toBe('REJECTED');
    expect(res.body.errors).toEqual([expect.objectContaining({ resourceId: id, type: 'APPLICANT_REJECTED' })]);
    expect((await api.get(`/customers/${id}`)).body.kybStatus).toBe('REJECTED');
    const rejectedEvents = await events(api, res.body.id);
    expect(rejectedEvents.map((e) => e.type)).toEqual(['VERIFICATION.REJECTED']);
    assertFitsWebhook('verification-update', { id: rejectedEvents[0]!.id, type: rejectedEvents[0]!.type, timestamp: rejectedEvents[0]!.timestamp, data: rejectedEvents[0]!.data });
    expect((await api.post('/verifications', { customerId: id })).status).toBe(400);
    for (const decision of ['HOLD', 'APPROVED', 'REJECTED']) {
      const refused = await api.post(`/_sandbox/customers/${id}/kyc-decision`, { decision });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'CONFLICT', details: { kybStatus: 'REJECTED', decision } });
      expect(refused.body.message).toContain(`is already REJECTED: a KYB decision is final, so it cannot become ${decision}`);
    }
    expect((await api.get(`/customers/${id}`)).body.kybStatus).toBe('REJECTED');
    expect((await api.post('/verifications', { customerId: id })).status).toBe(400);
    expect((await events(api, id, 'CUSTOMER.KYB_REJECTED')).length).toBe(1);
  });

  it('owners are resolved by their lastName suffix: 001 sends the business to manual review, 002 rejects it', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const review = (await api.post('/customers', businessBody('REG-9', { address: usAddress }))).body.id;
    const [pending] = await completePacket(api, review, [{ lastName: 'Smith001', pct: 100, roles: ['UBO', 'CONTROL_PERSON'] }]);
    expect((await api.get(`/beneficial-owners/${pending}`)).body.kycStatus).toBe('UNVERIFIED');
    expect((await api.post('/verifications', { customerId: review })).body.verificationStatus).toBe('PENDING_MANUAL_REVIEW');
    expect((await api.get(`/beneficial-owners/${pending}`)).body.kycStatus).toBe('PENDING');
    const bad = (await api.post('/customers', businessBody('REG-10', { address: usAddress }))).body.id;
    const [rejectedOwner] = await completePacket(api, bad, [{ lastName: 'Smith002', pct: 100, roles: ['UBO', 'CONTROL_PERSON'] }]);
    const res = await api.post('/verifications', { customerId: bad });
    expect(res.body.verificationStatus).toBe('REJECTED');
    expect(res.body.errors).toEqual([expect.objectContaining({ resourceId: rejectedOwner, type: 'APPLICANT_REJECTED' })]);
    const manual = (await api.post('/customers', businessBody('REG-001', { address: usAddress }))).body.id;
    await completePacket(api, manual, [{ lastName: 'Jones', pct: 100, roles: ['UBO', 'CONTROL_PERSON'] }]);
    expect((await api.post('/verifications', { customerId: manual })).body.verificationStatus).toBe('PENDING_MANUAL_REVIEW');
    expect((await decide(api, manual, 'REJECTED')).customer.kybStatus).toBe('REJECTED');
  });

  it('paperwork skipping resolves the suffix before packet validation', async () => {
    const api = await s.api.newPlatform({ regulated: false, paperworkSkipping: true });
    const ok = (await api.post('/customers', businessBody('REG-4242'))).body.id;
    const approved = await api.post('/verifications', { customerId: ok });
    expect(approved.body).toMatchObject({ verificationStatus: 'APPROVED', errors: [] });
    expect((await api.get(`/customers/${ok}`)).body.kybStatus).toBe('APPROVED');
    const no = (await api.post('/customers', businessBody('REG-4002'))).body.id;
    expect((await api.post('/verifications', { customerId: no })).body.verificationStatus).toBe('REJECTED');
    const validate = (await api.post('/customers', businessBody('REG-4003'))).body.id;
    const v = await api.post('/verifications', { customerId: validate });
    expect(v.body.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(types(v.body)).toEqual(['MISSING_FIELD', 'MISSING_FIELD', 'MISSING_FIELD']);
    await api.patch(`/customers/${validate}`, { customerType: 'BUSINESS', address: usAddress });
    expect((await api.post('/verifications', { customerId: validate })).body.verificationStatus).toBe('IN_PROGRESS');
  });
});

describe('beneficial owners', () => {
  it('creates, gets, lists and updates owners with the contract\'s rules', async () => {
    const api = await s.api.newPlatform({ paperworkSkipping: true });
    const biz = (await api.post('/customers', businessBody('R1', { endUserTermsConsent: undefined }))).body.id;
    const person = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith' })).body.id;
    const created = await api.post('/beneficial-owners', owner(biz, 'Smith', 60, ['UBO', 'DIRECTOR']));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ customerId: biz, roles: ['UBO', 'DIRECTOR'], ownershipPercentage: 60 });
    // businesses are created UNVERIFIED on every platform: owners wait for the business's verification
    expect(created.body.kycStatus).toBe('UNVERIFIED');
    expect((await api.get(`/beneficial-owners/${created.body.id}`)).body).toEqual(created.body);
    expect((await api.post('/verifications', { customerId: biz })).body.verificationStatus).toBe('APPROVED');
    expect((await api.get(`/beneficial-owners/${created.body.id}`)).body.kycStatus).toBe('APPROVED');
    // owners of an APPROVED business resolve at once (last-name suffix)
    const late = await api.post('/beneficial-owners', owner(biz, 'Late', 10, ['DIRECTOR']));
    expect(late.body.kycStatus).toBe('APPROVED');
    const tooMuch = await api.post('/beneficial-owners', owner(biz, 'Jones', 50, ['UBO']));
    expect(tooMuch.status).toBe(400);
    expect(fields(tooMuch.body)).toEqual(['ownershipPercentage']);
    const onPerson = await api.post('/beneficial-owners', owner(person, 'Jones', 10, ['UBO']));
    expect(onPerson.status).toBe(400);
    expect((await api.post('/beneficial-owners', owner('Customer:nope', 'Jones', 10, ['UBO']))).status).toBe(404);
    const bad = await api.post('/beneficial-owners', { customerId: biz, roles: ['KING'], ownershipPercentage: 101, personalInfo: { firstName: 'A' } });
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual(expect.arrayContaining(['roles.0', 'ownershipPercentage', 'personalInfo.lastName', 'personalInfo.address']));
    const ssn = await api.post('/beneficial-owners', { ...owner(biz, 'Jones', 10, ['UBO']), personalInfo: { ...owner(biz, 'Jones', 10, ['UBO']).personalInfo, identifier: '12345' } });
    expect(fields(ssn.body)).toEqual(['personalInfo.identifier']);
    const updated = await api.patch(`/beneficial-owners/${created.body.id}`, { ownershipPercentage: 75, roles: ['UBO'] });
    expect(updated.body).toMatchObject({ ownershipPercentage: 75, roles: ['UBO'] });
    await api.post('/beneficial-owners', owner(biz, 'Jones', 15, ['CONTROL_PERSON']));
    const list = await api.get(`/beneficial-owners?customerId=${biz}&limit=1`);
    expect(list.body).toMatchObject({ totalCount: 3, hasMore: true });
    const other = await s.api.newPlatform();
    expect((await other.get(`/beneficial-owners/${created.body.id}`)).status).toBe(404);
    expect((await other.patch(`/beneficial-owners/${created.body.id}`, { ownershipPercentage: 1 })).status).toBe(404);
  });
});
