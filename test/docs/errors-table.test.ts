import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { generateP256KeyPair } from '@turnkey/crypto';
import { describe, expect, it } from 'vitest';
import { errorCodes, operations } from '../../src/generated/operations.js';
import { individual, unique, useSandbox, type Api, type ApiResponse } from '../helpers/sandbox.js';
import { stampWith, walletCustomer } from '../helpers/wallet-client.js';
import { activeCard, cardholder } from '../resources/cards-helpers.js';

/**
 * Walks docs/errors.md's "Every documented error" table: each row's fault is armed and answered,
 * each natural path the walk scripts below is run, and a row's "tested in" names a test that
 * reaches the code. Every code is answered live at least once; the table and the sandbox cannot
 * drift apart.
 */

const s = useSandbox();
const root = fileURLToPath(new URL('../..', import.meta.url));

interface Row {
  code: string;
  status: number;
  natural: string;
  fault: { operationId: string; code: string } | undefined;
}

function table(): Row[] {
  const text = readFileSync(`${root}docs/errors.md`, 'utf8');
  const section = text.slice(text.indexOf('## Every documented error'));
  const body = section.slice(0, section.indexOf('\n## ', 1));
  const rows = body.split('\n').filter((line) => /^\| `[A-Z_]+` \|/.test(line));
  return rows.map((line) => {
    const cells = line.split(' | ').map((cell) => cell.replace(/^\| ?| ?\|$/g, '').trim());
    expect(cells, line).toHaveLength(4);
    const fault = cells[3] === '—' ? undefined : (JSON.parse(cells[3]!.replace(/^`|`$/g, '')) as Row['fault']);
    return { code: cells[0]!.replace(/`/g, ''), status: Number(cells[1]), natural: cells[2]!, fault };
  });
}

const ZERO = '00000000-0000-7000-8000-000000000000';
const key = () => ({ headers: { 'Idempotency-Key': randomUUID() } });
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', countryOfResidence: 'US', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } };
const consent = (termsVersion: string) => ({ acceptedAt: '2025-10-20T10:00:00Z', ipAddress: '203.0.113.7', termsVersion, acceptanceMethod: 'CHECKBOX' });

async function customerWithUsd(api: Api, fullName = 'Jane Smith') {
  const customer = (await api.post('/customers', individual(['USD'], { fullName }))).body;
  const accounts = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data;
  return { customer, usd: accounts.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD').id as string };
}

const lookup = (api: Api, address: string, customerId: string) => api.get(`/receiver/uma/${encodeURIComponent(address)}?customerId=${encodeURIComponent(customerId)}`);

async function payRequest(api: Api, address: string) {
  const { customer, usd } = await customerWithUsd(api);
  await api.post(`/sandbox/internal-accounts/${usd}/fund`, { amount: 100_00 });
  const { lookupId } = (await lookup(api, address, customer.id)).body;
  return api.post('/quotes', { lookupId, source: { sourceType: 'ACCOUNT', accountId: usd }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: address }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_00 });
}

async function atLookup(api: Api, address: string) {
  const { customer } = await customerWithUsd(api);
  return lookup(api, address, customer.id);
}

function upload(api: Api, customerId: string, fileName: string) {
  const form = new FormData();
  for (const [name, value] of Object.entries({ documentHolder: customerId, documentType: 'PASSPORT', country: 'US', documentNumber: 'X1234567', issuingAuthority: 'U.S. Department of State' })) form.append(name, value);
  form.append('file', new Blob([JPEG], { type: 'image/jpeg' }), fileName);
  // The contract lists no 422 for uploadDocument (API.md governs); the envelope is checked below.
  return api.request('POST', '/documents', { rawBody: form, unchecked: true });
}

async function documentReason(api: Api, suffix: string) {
  const { customer } = await customerWithUsd(api);
  return upload(api, customer.id, `passport-${suffix}.jpg`);
}

/** The first leg of a signed change of an embedded wallet (privacy), and a stamp over another payload. */
async function signedLeg(api: Api) {
  const { wallet } = await walletCustomer(api);
  const first = await api.patch(`/internal-accounts/${wallet.id}`, { privateEnabled: true });
  expect(first.status).toBe(202);
  const retry = (body: unknown, headers: Record<string, string>) => api.request('PATCH', `/internal-accounts/${wallet.id}`, { body, headers });
  return { first: first.body as { payloadToSign: string; requestId: string }, retry, stamp: await stampWith(generateP256KeyPair(), 'not the payload') };
}

/** The natural paths the walk runs (rows without one rely on their fault and their "tested in"). */
const natural: Record<string, (api: Api) => Promise<ApiResponse>> = {
  INVALID_INPUT: (api) => api.post('/customers', { customerType: 'NOPE' }),
  END_USER_TERMS_VERSION_NOT_FOUND: async (api) => {
    const unregulated = await api.newPlatform({ regulated: false });
    return unregulated.post('/customers', individual(['USD'], { endUserTermsConsent: consent('V1') }));
  },
  INVALID_UMA_ADDRESS: (api) => atLookup(api, 'not-an-address'),
  QUOTE_REQUEST_FAILED: (api) => payRequest(api, '$fail.quote.usd@sandbox.uma.money'),
  INVALID_PAYREQ_RESPONSE: (api) => payRequest(api, '$fail.payreq.usd@sandbox.uma.money'),
  PARSE_PAYREQ_RESPONSE_ERROR: (api) => payRequest(api, '$fail.payreq.parse.usd@sandbox.uma.money'),
  SENDER_NOT_ACCEPTED: (api) => payRequest(api, '$fail.sender.usd@sandbox.uma.money'),
  INVALID_RECEIVER: (api) => atLookup(api, '$fail.receiver.usd@sandbox.uma.money'),
  CERT_CHAIN_INVALID: (api) => atLookup(api, '$fail.cert.invalid.usd@sandbox.uma.money'),
  CERT_CHAIN_EXPIRED: (api) => atLookup(api, '$fail.cert.expired.usd@sandbox.uma.money'),
  INVALID_PUBKEY_FORMAT: (api) => atLookup(api, '$fail.pubkey.usd@sandbox.uma.money'),
  MISSING_REQUIRED_UMA_PARAMETERS: (api) => atLookup(api, '$fail.params.usd@sandbox.uma.money'),
  INVALID_TIMESTAMP: (api) => atLookup(api, '$fail.timestamp.usd@sandbox.uma.money'),
  INVALID_NONCE: (api) => atLookup(api, '$fail.nonce.usd@sandbox.uma.money'),
  LOOKUP_REQUEST_FAILED: (api) => atLookup(api, '$fail.lookup.usd@sandbox.uma.money'),
  PARSE_LNURLP_RESPONSE_ERROR: (api) => atLookup(api, '$fail.lnurlp.parse.usd@sandbox.uma.money'),
  UMA_NOT_FOUND: (api) => atLookup(api, '$nobody@sandbox.uma.money'),
  SELF_PAYMENT: async (api) => {
    const { customer } = await customerWithUsd(api);
    return lookup(api, customer.umaAddress, customer.id);
  },
  INVALID_BANK_ACCOUNT: async (api) => {
    const { customer } = await customerWithUsd(api);
    return api.post('/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456105', routingNumber: '021000021', bankName: 'Chase Bank', beneficiary: person },
    });
  },
  WEBHOOK_ENDPOINT_NOT_SET: (api) => api.post('/sandbox/webhooks/test'),
  DOCUMENT_REJECTED: (api) => documentReason(api, '422'),
  LOW_QUALITY: (api) => documentReason(api, '422'),
  DATA_MISMATCH: (api) => documentReason(api, '423'),
  EXPIRED: (api) => documentReason(api, '424'),
  SUSPECTED_FRAUD: (api) => documentReason(api, '425'),
  UNSUITABLE_DOCUMENT: (api) => documentReason(api, '426'),
  INCOMPLETE: (api) => documentReason(api, '427'),
  EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS: async (api) => {
    const { wallet } = await walletCustomer(api);
    await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
    return api.post('/auth/credentials', { type: 'EMAIL_OTP', accountId: wallet.id });
  },
  EMAIL_OTP_EMAIL_ALREADY_EXISTS: async (api) => {
    const first = await walletCustomer(api);
    const second = await walletCustomer(api);
    for (const { wallet } of [first, second]) await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
    return api.patch(`/customers/${second.customer.id}`, { customerType: 'INDIVIDUAL', email: first.email });
  },
  STABLECOIN_PROVIDER_ACCOUNT_INVALID: (api) => api.post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: 'key_invalid', apiClientSecret: 'x' }, key()),
  STABLECOIN_SERVICE_ENABLEMENT_NOT_REQUESTABLE: async (api) => {
    expect((await api.post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: unique('brale'), apiClientSecret: 'brale-secret' }, key())).status).toBe(201);
    const coin = (await api.post('/stablecoins', { providerTokenIdentifier: 'SBC', networkTokenIdentifier: unique('btkn'), network: 'SPARK' }, key())).body;
    await api.post(`/_sandbox/stablecoins/${coin.id}/request-enablement`);
    await api.post(`/_sandbox/stablecoins/${coin.id}/service-operations-status`, { serviceOperationsStatus: 'ENABLED' });
    return api.post(`/_sandbox/stablecoins/${coin.id}/request-enablement`);
  },
  CARDHOLDER_KYC_NOT_APPROVED: async (api) => {
    const { customer, usd } = await customerWithUsd(api, 'Jane Doe001');
    return api.post('/cards', { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [usd], platformCardId: `${unique('card')}-123` });
  },
  FUNDING_SOURCE_INELIGIBLE: async () => {
    const { api, customer } = await cardholder(s.api, s.sandbox, 0);
    const other = await customerWithUsd(api);
    // API.md names the code; the contract's Error400 does not list it (the envelope is checked below).
    return api.request('POST', '/cards', { body: { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [other.usd], platformCardId: `${unique('card')}-123` }, unchecked: true });
  },
  CARD_LIMIT_REACHED: async () => {
    const { api, customer, usd } = await cardholder(s.api, s.sandbox, 0);
    await api.patch('/_sandbox/cards/settings', { maxLiveCards: 1 });
    await activeCard(api, customer.id, [usd]);
    // API.md names the 409; the contract's createCard lists none (the envelope is checked below).
    return api.request('POST', '/cards', { body: { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [usd], platformCardId: `${unique('card')}-123` }, unchecked: true });
  },
  CARD_ALREADY_CLOSED: async () => {
    const { api, customer, usd } = await cardholder(s.api, s.sandbox, 0);
    const card = await activeCard(api, customer.id, [usd]);
    await api.patch(`/cards/${card.id}`, { state: 'CLOSED' });
    return api.patch(`/cards/${card.id}`, { state: 'CLOSED' });
  },
  UNAUTHORIZED: (api) => api.get('/config', { auth: false }),
  WALLET_SIGNATURE_MISSING: async (api) => {
    const { first, retry } = await signedLeg(api);
    return retry({ privateEnabled: true }, { 'Request-Id': first.requestId });
  },
  WALLET_SIGNATURE_MALFORMED: async (api) => {
    const { first, retry } = await signedLeg(api);
    return retry({ privateEnabled: true }, { 'Request-Id': first.requestId, 'Service-Wallet-Signature': 'not-a-stamp' });
  },
  WALLET_SIGNATURE_BODY_MISMATCH: async (api) => {
    const { first, retry, stamp } = await signedLeg(api);
    return retry({ privateEnabled: false }, { 'Request-Id': first.requestId, 'Service-Wallet-Signature': stamp });
  },
  WALLET_SIGNATURE_INVALID: async (api) => {
    const { first, retry, stamp } = await signedLeg(api);
    return retry({ privateEnabled: true }, { 'Request-Id': first.requestId, 'Service-Wallet-Signature': stamp });
  },
  REQUEST_ID_MISSING: async (api) => {
    const { retry, stamp } = await signedLeg(api);
    return retry({ privateEnabled: true }, { 'Service-Wallet-Signature': stamp });
  },
  END_USER_TERMS_NOT_ACCEPTED: async (api) => {
    const unregulated = await api.newPlatform({ regulated: false });
    const customer = (await unregulated.post('/customers', individual(['USD']))).body;
    return unregulated.post('/quotes', {
      source: { sourceType: 'REALTIME_FUNDING', customerId: customer.id, currency: 'USD' },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.uma.money' },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_00,
    });
  },
  USER_NOT_FOUND: (api) => api.get(`/customers/Customer:${ZERO}`),
  TRANSACTION_NOT_FOUND: (api) => api.get(`/transactions/Transaction:${ZERO}`),
  QUOTE_NOT_FOUND: (api) => api.get(`/quotes/Quote:${ZERO}`),
  INVITATION_NOT_FOUND: (api) => api.get('/invitations/nope'),
  TOKEN_NOT_FOUND: (api) => api.get(`/tokens/Token:${ZERO}`),
  BULK_UPLOAD_JOB_NOT_FOUND: (api) => api.get(`/customers/bulk/jobs/Job:${ZERO}`),
  REFERENCE_NOT_FOUND: (api) => api.get(`/documents/Document:${ZERO}`),
  STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND: (api) => api.get(`/stablecoin-provider-accounts/StablecoinProviderAccount:${ZERO}`),
  TRANSACTION_NOT_CANCELLABLE: async (api) => {
    const { usd } = await customerWithUsd(api);
    expect((await api.post(`/sandbox/internal-accounts/${usd}/fund`, { amount: 10_00 })).status).toBe(200);
    const [funding] = (await api.get('/transactions')).body.data as { id: string; status: string }[];
    expect(funding!.status).toBe('COMPLETED');
    return api.post(`/transactions/${funding!.id}/cancel`, {});
  },
  UMA_ADDRESS_EXISTS: async (api) => {
    const umaAddress = `$${unique('taken').toLowerCase()}@sandbox.example.com`;
    await api.post('/customers', individual(['USD'], { umaAddress }));
    return api.post('/customers', individual(['USD'], { umaAddress }));
  },
  CONFLICT: async (api) => {
    const platformCustomerId = unique('twice');
    await api.post('/customers', individual(['USD'], { platformCustomerId }));
    return api.post('/customers', individual(['USD'], { platformCustomerId }));
  },
};

/** The answer's code: the envelope's, or for a document rejection reason its `details.reason`. */
const answered = (row: Row, res: ApiResponse) => (res.body?.code === 'DOCUMENT_REJECTED' && row.code !== 'DOCUMENT_REJECTED' ? res.body.details?.reason : res.body?.code);

describe('docs/errors.md: every documented error', () => {
  const rows = table();

  it('lists the 77 codes of API.md and the two of its prose, once each, every one reachable live', () => {
    expect(rows).toHaveLength(79);
    expect(new Set(rows.map((row) => row.code)).size).toBe(79);
    for (const row of rows) expect(row.fault !== undefined || natural[row.code] !== undefined, `${row.code} has neither a fault nor a scripted natural path`).toBe(true);
    for (const code of Object.keys(natural)) expect(rows.some((row) => row.code === code), `a natural path for ${code}, which the table does not list`).toBe(true);
  });

  it('names tests that exist and reach the code', () => {
    for (const row of rows) {
      for (const [, file] of row.natural.matchAll(/tested in `([^`]+)`/g)) {
        expect(existsSync(`${root}${file}`), `${row.code}: ${file}`).toBe(true);
        expect(readFileSync(`${root}${file!}`, 'utf8'), `${row.code}: ${file}`).toContain(`'${row.code}'`);
      }
    }
  });

  it.each(rows.filter((row) => row.fault).map((row) => [row.code, row] as const))('%s: its fault answers it', async (_code, row) => {
    const api = await s.api.newPlatform();
    const op = operations.find((candidate) => candidate.operationId === row.fault!.operationId)!;
    expect(op, row.fault!.operationId).toBeDefined();
    expect(row.fault!.code).toBe(row.code);
    const armed = await api.post('/_sandbox/faults', row.fault);
    expect(armed.status, JSON.stringify(armed.body)).toBe(201);
    const path = op.path.replace(/\{[^}]+\}/g, 'x');
    const res = await api.request(op.method, path, op.method === 'GET' || op.method === 'DELETE' ? {} : { body: {} });
    const status = op.statuses.find((candidate) => errorCodes[candidate]?.includes(row.code));
    expect([res.status, res.body.code]).toEqual([status, row.code]);
    // The status column is the natural answer's; a fault answers the contract's (400 for a document reason).
    expect(status === row.status || row.natural.includes('DOCUMENT_REJECTED') || row.natural.startsWith('the same with')).toBe(true);
    expect(res.headers.get('service-sandbox-fault')).toBe(armed.body.id);
  });

  it.each(Object.keys(natural).map((code) => [code] as const))('%s: its natural path answers it', async (code) => {
    const row = rows.find((candidate) => candidate.code === code)!;
    const res = await natural[code]!(await s.api.newPlatform());
    expect([res.status, answered(row, res)], JSON.stringify(res.body)).toEqual([row.status, code]);
    expect(res.body).toMatchObject({ status: row.status, message: expect.any(String) });
    expect(res.headers.get('service-sandbox-fault')).toBeNull();
  });
});
