import { describe, expect, it } from 'vitest';
import { assertErrorEnvelope, assertFitsContract } from '../helpers/contract.js';
import { AUTH, exitOf, startCli } from '../helpers/cli.js';
import { encryptOtp, stampWith, type KeyPair } from '../helpers/wallet-client.js';
import { p256 } from '@noble/curves/nist.js';

/**
 * `--seed` and `--clock-start`: the same scripted run of 200 requests over many areas against two
 * fresh sandboxes (separate processes) answers byte-identical bodies; another seed other ids.
 */

/** The client's own key for the wallet login: fixed, as a snapshot test's client would fix it. */
const tek: KeyPair = (() => {
  const privateKey = '1f'.repeat(32);
  const secret = Uint8Array.from(Buffer.from(privateKey, 'hex'));
  return {
    privateKey,
    publicKey: Buffer.from(p256.getPublicKey(secret, true)).toString('hex'),
    publicKeyUncompressed: Buffer.from(p256.getPublicKey(secret, false)).toString('hex'),
  };
})();

interface Exchange {
  request: string;
  status: number;
  body: string;
}

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Maria Garcia', countryOfResidence: 'MX', address: { line1: 'Av. Reforma 1', postalCode: '06600', country: 'MX' } };
const usBeneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } };

/** Runs the scripted sequence against a sandbox; every answer recorded as its raw text. */
async function script(origin: string): Promise<Exchange[]> {
  const log: Exchange[] = [];
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> => {
    const url = path.startsWith('/_sandbox') ? `${origin}${path}` : `${origin}/2025-10-13${path}`;
    const response = await fetch(url, {
      method,
      headers: { Authorization: AUTH, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    const bare = path.split('?')[0]!;
    if (path.startsWith('/_sandbox')) {
      if (response.status >= 400) assertErrorEnvelope(parsed, response.status, `${method} ${bare}`);
    } else {
      assertFitsContract(method, bare, response.status, parsed);
    }
    log.push({ request: `${method} ${path}`, status: response.status, body: text });
    return parsed;
  };

  await call('GET', '/config');
  await call('GET', '/tokens?limit=5');
  const token = await call('POST', '/tokens', { name: 'ci', permissions: ['VIEW'] });
  await call('GET', '/tokens');
  const customers: { id: string; usd: string; mxnExternal: string; usdExternal: string }[] = [];
  for (let i = 0; i < 8; i += 1) {
    const customer = await call('POST', '/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `repro-${i}`,
      fullName: `Jane Smith ${i}`,
      birthDate: '1990-01-15',
      nationality: 'US',
      email: `jane.${i}@example.com`,
      currencies: ['USD', 'EUR', 'MXN', 'USDB'],
    });
    const accounts = await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`);
    const usd = accounts.data.find((a: any) => a.balance.currency.code === 'USD').id as string;
    await call('POST', `/sandbox/internal-accounts/${usd}/fund`, { amount: 5_000_00 });
    const mxn = await call('POST', '/customers/external-accounts', {
      customerId: customer.id,
      currency: 'MXN',
      accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: `00218000011234${String(i).padStart(1, '0')}123`, beneficiary },
    });
    const usdExt = await call('POST', '/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: `24682468246${i}`, routingNumber: '021000021', beneficiary: usBeneficiary },
    });
    customers.push({ id: customer.id, usd, mxnExternal: mxn.id, usdExternal: usdExt.id });
    await call('GET', `/customers/${customer.id}`);
  }
  await call('GET', '/customers?limit=5');
  for (const [i, c] of customers.entries()) {
    const quote = await call('POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: c.usd },
      destination: { destinationType: 'ACCOUNT', accountId: c.mxnExternal },
      lockedCurrencySide: i % 2 === 0 ? 'SENDING' : 'RECEIVING',
      lockedCurrencyAmount: 100_00 + i * 7,
    }, { 'Idempotency-Key': `quote-${i}` });
    await call('GET', `/quotes/${quote.id}`);
    await call('POST', `/quotes/${quote.id}/execute`, {}, { 'Idempotency-Key': `execute-${i}` });
    await call('POST', '/transfer-out', { source: { accountId: c.usd }, destination: { accountId: c.usdExternal }, amount: 10_00 + i }, { 'Idempotency-Key': `out-${i}` });
    await call('POST', '/transfer-in', { source: { accountId: c.usdExternal }, destination: { accountId: c.usd }, amount: 5_00 + i }, { 'Idempotency-Key': `in-${i}` });
  }
  await call('GET', '/rates?sourceCurrency=USD&destinationCurrency=MXN');
  await call('POST', '/_sandbox/clock/advance', { seconds: 360 });
  await call('GET', '/transactions?limit=20');
  await call('GET', '/transactions?limit=20&sortOrder=asc');
  for (const c of customers) await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(c.id)}`);

  // Cards: issue, read, authorise and clear on the first customers.
  for (const [i, c] of customers.slice(0, 4).entries()) {
    const card = await call('POST', '/cards', { cardholderId: c.id, form: 'VIRTUAL', fundingSources: [c.usd], platformCardId: `repro-card-${i}-123` });
    await call('GET', `/cards/${card.id}`);
    const simulated = await call('POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 12_34 + i, currency: { code: 'USD' }, merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' } });
    await call('GET', `/_sandbox/cards/simulations/${simulated.issuerTransactionToken}`);
    await call('POST', `/cards/${card.id}/reveal`, {});
  }
  await call('POST', '/_sandbox/clock/advance', { seconds: 60 });
  await call('GET', '/cards');

  // The whole state, every table (before the wallet login: its stored request holds the client's own HPKE ciphertext).
  await call('GET', '/_sandbox/snapshot');

  // The wallet of the first customer: the EMAIL_OTP login, signed with the client's fixed key.
  const wallets = await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customers[0]!.id)}&type=EMBEDDED_WALLET`);
  const walletId = (wallets.data.find((a: any) => a.type === 'EMBEDDED_WALLET') ?? wallets.data[0]).id as string;
  const credentials = await call('GET', `/auth/credentials?accountId=${encodeURIComponent(walletId)}`);
  const credential = credentials.data.find((c: any) => c.type === 'EMAIL_OTP');
  if (credential) {
    const challenge = await call('POST', `/auth/credentials/${credential.id}/challenge`, {});
    const bundle = { type: 'EMAIL_OTP', encryptedOtpBundle: encryptOtp(challenge.otpEncryptionTargetBundle, '000000', tek) };
    const first = await call('POST', `/auth/credentials/${credential.id}/verify`, bundle);
    await call('POST', `/auth/credentials/${credential.id}/verify`, bundle, { 'Service-Wallet-Signature': await stampWith(tek, first.payloadToSign), 'Request-Id': first.requestId });
    await call('GET', `/auth/sessions?accountId=${encodeURIComponent(walletId)}`);
  }

  // Webhooks, errors and reads, until 200 requests.
  await call('GET', '/_sandbox/webhooks/deliveries?limit=50');
  await call('GET', '/_sandbox/webhooks/public-key');
  await call('POST', '/customers', { customerType: 'INDIVIDUAL' });
  await call('GET', '/customers/Customer:00000000-0000-7000-8000-000000000000');
  await call('DELETE', `/tokens/${token.id}`);
  let i = 0;
  while (log.length < 200) {
    const c = customers[i % customers.length]!;
    await call('GET', i % 2 === 0 ? `/customers/${c.id}` : `/transactions?limit=5&customerId=${encodeURIComponent(c.id)}`);
    i += 1;
  }
  return log;
}

const flags = (seed: string, port = '0') => ['--port', port, '--memory', '--quiet', '--seed', seed, '--clock-start', '2030-01-01T00:00:00Z'];

describe('reproducible runs (--seed, --clock-start)', () => {
  it('the same 200 requests against two fresh sandboxes with the same seed answer byte-identical bodies; another seed gives other ids', { timeout: 120_000 }, async () => {
    // The second run takes the first one's port: URLs the sandbox builds from its own address
    // (a card's reveal URL, hosted pages) carry it, so identical bodies need the same --port.
    const a = await startCli(flags('42'));
    const first = await script(a.origin);
    a.child.kill('SIGTERM');
    await exitOf(a.child);
    const [b, c] = await Promise.all([startCli(flags('42', new URL(a.origin).port)), startCli(flags('43'))]);
    const second = await script(b.origin);
    const other = await script(c.origin);
    expect(first).toHaveLength(200);
    // The run did real work: most answers are successes, across the areas.
    expect(first.filter((e) => e.status < 300).length).toBeGreaterThan(170);
    for (const area of ['/customers', '/quotes', '/transfer-out', '/transfer-in', '/cards', '/auth/credentials', '/tokens', '/_sandbox/webhooks/deliveries']) {
      expect(first.some((e) => e.request.includes(area) && e.status < 300), area).toBe(true);
    }
    expect(first.some((e) => e.request.includes('/verify') && e.status === 200), 'a wallet session').toBe(true);
    const differing = first.filter((e, i) => second[i]!.request !== e.request || second[i]!.status !== e.status || second[i]!.body !== e.body);
    expect(differing.map((e) => e.request)).toEqual([]);
    // Times are the still clock's: the first customer was made at the start instant.
    expect(JSON.parse(first[4]!.body).createdAt).toBe('2030-01-01T00:00:00.000Z');
    // Another seed: the same statuses and times, other ids and secrets.
    const idsOf = (run: Exchange[]) => run.map((e) => e.body.match(/[A-Za-z]+:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g) ?? []).flat();
    expect(other.map((e) => e.status)).toEqual(first.map((e) => e.status));
    const ours = new Set(idsOf(first));
    expect(ours.size).toBeGreaterThan(100);
    expect(idsOf(other).filter((id) => ours.has(id))).toEqual(['Customer:00000000-0000-7000-8000-000000000000']);
    expect(JSON.parse(other[2]!.body).clientSecret).not.toBe(JSON.parse(first[2]!.body).clientSecret);
    for (const child of [b, c]) child.child.kill('SIGTERM');
  });
});
