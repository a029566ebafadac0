import { describe, expect, it } from 'vitest';
import { euIndividual, unique, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();


/** Fetches a hosted page without following redirects. */
async function hosted(url: string, init: RequestInit = {}) {
  const res = await fetch(url, { redirect: 'manual', ...init });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

async function verifyAll(api: Api, id: string) {
  for (const channel of ['email', 'phone']) {
    expect((await api.post(`/customers/${id}/verify-${channel}`)).status).toBe(204);
    expect((await api.post(`/customers/${id}/verify-${channel}/confirm`, { code: '123456' })).status).toBe(200);
  }
}

describe('contact verification', () => {
  it('EU customers carry PENDING channels; send, resend and confirm with 123456; a wrong code is 400', async () => {
    const api = await s.api.newPlatform();
    const created = await api.post('/customers', euIndividual());
    expect(created.body.contactVerification).toEqual({ email: 'PENDING', phone: 'PENDING' });
    const id = created.body.id;
    const early = await api.post(`/customers/${id}/verify-email/confirm`, { code: '123456' });
    expect(early.status).toBe(400);
    expect((await api.post(`/customers/${id}/verify-email`)).status).toBe(204);
    expect((await api.post(`/customers/${id}/verify-email`)).status).toBe(204);
    const wrong = await api.post(`/customers/${id}/verify-email/confirm`, { code: '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details.errors[0].field).toBe('code');
    const ok = await api.post(`/customers/${id}/verify-email/confirm`, { code: '123456' });
    expect(ok.status).toBe(200);
    expect(ok.body.contactVerification).toEqual({ email: 'VERIFIED', phone: 'PENDING' });
    expect((await api.post(`/customers/${id}/verify-email`)).status).toBe(409);
    // a changed email must be verified again
    const changed = await api.patch(`/customers/${id}`, { customerType: 'INDIVIDUAL', email: 'anna.new@example.de' });
    expect(changed.body.contactVerification.email).toBe('PENDING');
    expect((await api.post(`/customers/${id}/verify-phone/confirm`, {})).status).toBe(400);
  });

  it('409 for channels that are not required; 404 for unknown customers', async () => {
    const api = await s.api.newPlatform();
    const us = await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith', nationality: 'US', email: 'jane@example.com' });
    expect(us.body.contactVerification).toBeUndefined();
    expect((await api.post(`/customers/${us.body.id}/verify-email`)).status).toBe(409);
    expect((await api.post(`/customers/${us.body.id}/verify-phone/confirm`, { code: '123456' })).status).toBe(409);
    const emailOnly = await api.post('/customers', euIndividual({ phoneNumber: undefined }));
    expect(emailOnly.body.contactVerification).toEqual({ email: 'PENDING' });
    expect((await api.post(`/customers/${emailOnly.body.id}/verify-phone`)).status).toBe(409);
    const missing = await api.post('/customers/Customer:nope/verify-email');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('USER_NOT_FOUND');
  });
});

describe('KYC link and hosted flow', () => {
  it('409 while a present channel is not VERIFIED; then a fresh single-use link per call, Idempotency-Key honoured', async () => {
    const api = await s.api.newPlatform();
    const id = (await api.post('/customers', euIndividual())).body.id;
    const blocked = await api.post(`/customers/${id}/kyc-link`, { redirectUri: 'https://platform.example/done' });
    expect(blocked.status).toBe(409);
    await verifyAll(api, id);
    const key = unique('idem');
    const first = await api.post(`/customers/${id}/kyc-link`, { redirectUri: 'https://platform.example/done' }, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ provider: 'SUMSUB', kycUrl: expect.stringContaining('/hosted/kyc/'), token: expect.any(String) });
    expect(first.body.kycUrl).toContain(encodeURIComponent('https://platform.example/done'));
    const replay = await api.post(`/customers/${id}/kyc-link`, { redirectUri: 'https://platform.example/done' }, { headers: { 'Idempotency-Key': key } });
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    const fresh = await api.post(`/customers/${id}/kyc-link`);
    expect(fresh.status).toBe(201);
    expect(fresh.body.kycUrl).not.toBe(first.body.kycUrl);
    expect(Date.parse(fresh.body.expiresAt)).toBeGreaterThan(Date.now());
    const bad = await api.post(`/customers/${id}/kyc-link`, { redirectUri: 'not a uri' });
    expect(bad.status).toBe(400);
    expect((await api.post('/customers/Customer:nope/kyc-link')).status).toBe(404);

    // single use: the first visit opens a session, the second shows the expired page
    const open = await hosted(first.body.kycUrl);
    expect(open.status).toBe(303);
    expect(open.location).toMatch(/\/hosted\/kyc\/session\//);
    const twice = await hosted(first.body.kycUrl);
    expect(twice.status).toBe(410);
    expect(twice.text).toContain('expired');
    // an earlier link is not invalidated by a later one
    expect((await hosted(fresh.body.kycUrl)).status).toBe(303);
  });

  it('a link used after expiresAt shows the expired page', async () => {
    const api = await s.api.newPlatform();
    const id = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith' })).body.id;
    const link = await api.post(`/customers/${id}/kyc-link`);
    await api.advance(16 * 60);
    const late = await hosted(link.body.kycUrl);
    expect(late.status).toBe(410);
    expect(late.text).toContain('expired');
  });

  it('a person approves in the browser: the customer moves through PENDING to APPROVED with events', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const id = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Doe003', nationality: 'US' })).body.id;
    const link = await api.post(`/customers/${id}/kyc-link`, { redirectUri: 'https://platform.example/back' });
    const open = await hosted(link.body.kycUrl);
    const session = new URL(open.location!, link.body.kycUrl).toString();
    const pageView = await hosted(session);
    expect(pageView.status).toBe(200);
    expect(pageView.text).toContain('UNVERIFIED');
    expect(pageView.text).toContain('MISSING_IDENTITY_DOCUMENT');
    const garbled = await hosted(`${session}/decision`, { method: 'POST', headers: { 'Content-Type': 'multipart/form-data; boundary=zzz' }, body: 'garbage' });
    expect(garbled.status).toBe(400);
    expect((await hosted(`${session}/decision`, { method: 'POST', body: new URLSearchParams({ decision: 'MAYBE' }) })).status).toBe(400);
    const decided = await hosted(`${session}/decision`, { method: 'POST', body: new URLSearchParams({ decision: 'APPROVED' }) });
    expect(decided.status).toBe(303);
    expect((await api.get(`/customers/${id}`)).body.kycStatus).toBe('APPROVED');
    const after = await hosted(new URL(decided.location!, session).toString());
    expect(after.text).toContain('https://platform.example/back');
    expect(after.text).toContain('The KYC decision is final');
    expect(after.text).not.toContain('name="decision"');
    // a second decision (a stale page, a double submit) is refused on the page, naming the status
    const second = await hosted(`${session}/decision`, { method: 'POST', body: new URLSearchParams({ decision: 'REJECTED' }) });
    expect(second.status).toBe(409);
    expect(second.text).toContain('is already APPROVED: a KYC decision is final, so it cannot become REJECTED');
    expect((await api.get(`/customers/${id}`)).body.kycStatus).toBe('APPROVED');
    const types = (await api.get(`/_sandbox/webhooks/deliveries?resourceId=${encodeURIComponent(id)}&limit=10`)).body.data.map((e: { type: string }) => e.type).sort();
    expect(types).toEqual(['CUSTOMER.KYC_APPROVED', 'CUSTOMER.KYC_PENDING']);
  });

  it('a 003 business supplies what is missing in the hosted flow and is submitted from it', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const id = (await api.post('/customers', {
      customerType: 'BUSINESS',
      businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber: 'REG-003' },
      currencies: ['USD'],
    })).body.id;
    const link = await api.post(`/customers/${id}/kyc-link`);
    const session = new URL((await hosted(link.body.kycUrl)).location!, link.body.kycUrl).toString();
    expect((await hosted(session)).text).toContain('MISSING_BENEFICIAL_OWNER');
    const saved = await hosted(`${session}/fields`, { method: 'POST', body: new URLSearchParams({ 'address.line1': '1 Main St', 'address.postalCode': '98101', 'address.country': 'US' }) });
    expect(saved.status).toBe(303);
    expect((await api.get(`/customers/${id}`)).body.address).toMatchObject({ line1: '1 Main St', country: 'US' });
    // only the fields the page asks for are taken
    await hosted(`${session}/fields`, { method: 'POST', body: new URLSearchParams({ '__proto__.polluted': 'yes', 'businessInfo.legalName': 'Renamed' }) });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await api.get(`/customers/${id}`)).body.businessInfo.legalName).toBe('Acme Corporation');
    const ownerForm = new URLSearchParams({
      firstName: 'Alex', lastName: 'Smith', birthDate: '1980-05-05', nationality: 'US', line1: '1 Main St', postalCode: '98101', country: 'US',
      idType: 'SSN', identifier: '123-45-6789', ownershipPercentage: '100',
    });
    ownerForm.append('roles', 'UBO');
    ownerForm.append('roles', 'CONTROL_PERSON');
    expect((await hosted(`${session}/owners`, { method: 'POST', body: ownerForm })).status).toBe(303);
    const owners = (await api.get(`/beneficial-owners?customerId=${id}`)).body.data;
    expect(owners).toHaveLength(1);
    expect(owners[0].roles).toEqual(['UBO', 'CONTROL_PERSON']);
    const pdf = new Uint8Array(Buffer.from('%PDF-1.4\n%%EOF\n'));
    const docs: [string, string, Record<string, string>][] = [
      [id, 'CERTIFICATE_OF_INCORPORATION', {}], [id, 'SHAREHOLDER_REGISTER', {}], [id, 'DIRECTOR_REGISTRY', {}], [id, 'UTILITY_BILL', {}],
      [owners[0].id, 'PASSPORT', { documentNumber: 'X1', issuingAuthority: 'U.S. Department of State' }],
    ];
    for (const [holder, documentType, extra] of docs) {
      const data = new FormData();
      for (const [k, v] of Object.entries({ documentHolder: holder, documentType, country: 'us', ...extra })) data.append(k, v);
      data.append('file', new Blob([pdf], { type: 'application/pdf' }), 'doc.pdf');
      const res = await hosted(`${session}/documents`, { method: 'POST', body: data });
      expect(res.status, documentType).toBe(303);
    }
    const badDoc = new FormData();
    badDoc.append('documentHolder', id);
    badDoc.append('documentType', 'PASSPORT');
    badDoc.append('country', 'US');
    badDoc.append('file', new Blob(['not a pdf']), 'x.pdf');
    const refused = await hosted(`${session}/documents`, { method: 'POST', body: badDoc });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('not a PDF, JPEG or PNG');
    const submitted = await hosted(`${session}/submit`, { method: 'POST' });
    expect(submitted.status).toBe(303);
    expect(decodeURIComponent(submitted.location!)).toContain('IN_PROGRESS');
    expect((await api.get(`/customers/${id}`)).body.kybStatus).toBe('PENDING');
    await api.advance(30);
    expect((await api.get(`/customers/${id}`)).body.kybStatus).toBe('APPROVED');
  });
});
