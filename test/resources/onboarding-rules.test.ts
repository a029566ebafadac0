import { describe, expect, it } from 'vitest';
import { unique, useSandbox, type Api } from '../helpers/sandbox.js';

// sandbox-rules.md "Rulings": the suffix rules apply on every platform, regulated or not;
// businesses are created UNVERIFIED on every platform and verification decides them.
const s = useSandbox();

const individual = (fullName: string, extra: Record<string, unknown> = {}) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: unique('ind'),
  fullName,
  ...extra,
});

const business = (registrationNumber: string, extra: Record<string, unknown> = {}) => ({
  customerType: 'BUSINESS',
  platformCustomerId: unique('biz'),
  businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber },
  ...extra,
});

const fields = (body: { details?: { errors?: { field: string }[] } }) => (body.details?.errors ?? []).map((e) => e.field);

async function deliveredTypes(api: Api, resourceId: string): Promise<string[]> {
  const res = await api.get(`/_sandbox/webhooks/deliveries?resourceId=${encodeURIComponent(resourceId)}`);
  return (res.body.data as { type: string }[]).map((d) => d.type).sort();
}

const platforms: [string, () => Promise<Api>][] = [
  ['the default (regulated) platform', async () => s.api],
  ['an unregulated platform', async () => s.api.newPlatform({ regulated: false })],
];

describe.each(platforms)('onboarding on %s', (_name, platformOf) => {
  it('decides kycStatus at creation by the fullName suffix', async () => {
    const api = await platformOf();
    const expected: [string, string][] = [
      ['Jane Smith001', 'PENDING'],
      ['Jane Smith002', 'REJECTED'],
      ['Jane Smith003', 'UNVERIFIED'],
      ['Jane Smith', 'APPROVED'],
      ['Jane Smith004', 'APPROVED'],
    ];
    for (const [fullName, status] of expected) {
      const created = await api.post('/customers', individual(fullName));
      expect(created.status, fullName).toBe(201);
      expect(created.body.kycStatus, fullName).toBe(status);
      expect((await api.get(`/customers/${created.body.id}`)).body.kycStatus).toBe(status);
    }
    const pending = await api.post('/customers', individual('Ann Lee001'));
    expect(await deliveredTypes(api, pending.body.id)).toEqual(['CUSTOMER.KYC_PENDING']);
  });

  it('creates businesses UNVERIFIED whatever the registration number; verification decides', async () => {
    const api = await platformOf();
    for (const reg of ['REG-1001', 'REG-1002', 'REG-1003', 'REG-1234']) {
      const created = await api.post('/customers', business(reg));
      expect(created.status).toBe(201);
      expect(created.body.kybStatus, reg).toBe('UNVERIFIED');
    }
    // verification decides: an incomplete packet lists its gaps, whatever the platform kind
    const incomplete = (await api.post('/customers', business('REG-2003'))).body.id;
    const verification = await api.post('/verifications', { customerId: incomplete });
    expect(verification.body.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(verification.body.errors.length).toBeGreaterThan(0);
    expect((await api.get(`/customers/${incomplete}`)).body.kybStatus).not.toBe('APPROVED');
  });

  it('refuses a kycStatus / kybStatus outside the contract enum or of the wrong type, naming the field', async () => {
    const api = await platformOf();
    const badKyc = await api.post('/customers', individual('Jane Smith', { kycStatus: 'SUPER_APPROVED' }));
    expect(badKyc.status).toBe(400);
    expect(badKyc.body.code).toBe('INVALID_INPUT');
    expect(fields(badKyc.body)).toEqual(['kycStatus']);
    const wrongType = await api.post('/customers', individual('Jane Smith', { kycStatus: 7 }));
    expect(wrongType.status).toBe(400);
    expect(fields(wrongType.body)).toEqual(['kycStatus']);
    const badKyb = await api.post('/customers', business('REG-1234', { kybStatus: ['APPROVED'] }));
    expect(badKyb.status).toBe(400);
    expect(fields(badKyb.body)).toEqual(['kybStatus']);
    // a value from the enum is accepted, but the sandbox rule decides the status
    const asked = await api.post('/customers', business('REG-1234', { kybStatus: 'APPROVED' }));
    expect(asked.status).toBe(201);
    expect(asked.body.kybStatus).toBe('UNVERIFIED');
    const askedKyc = await api.post('/customers', individual('Jane Smith002', { kycStatus: 'APPROVED' }));
    expect(askedKyc.body.kycStatus).toBe('REJECTED');
  });
});
