import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { useSandbox } from '../helpers/sandbox.js';
import { walletCustomer } from '../helpers/wallet-client.js';

const s = useSandbox();

async function cli(args: string[]): Promise<string> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    await buildProgram().exitOverride().parseAsync(['node', 'service-sandbox', ...args]);
  } finally {
    spy.mockRestore();
  }
  return out;
}

describe('service-sandbox wallet login / sign', () => {
  it('logs in with the sandbox OTP, saves the key, and signs a payout the server accepts', async () => {
    const api = await s.api.newPlatform();
    const { wallet, usd } = await walletCustomer(api);
    await api.post(`/sandbox/internal-accounts/${wallet.id}/fund`, { amount: 30_000_000 });
    const keyFile = join(mkdtempSync(join(tmpdir(), 'wallet-cli-')), 'key.json');
    const creds = ['--url', s.sandbox.origin, '--client-id', api.clientId, '--client-secret', api.clientSecret];
    const out = await cli(['wallet', 'login', wallet.id, '--key-file', keyFile, ...creds]);
    expect(out).toMatch(/^session Session:/);
    expect(out).toContain(`private key saved to ${keyFile}`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(keyFile, 'utf8'));
    expect(out).not.toContain(saved.privateKey);
    const quote = await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: wallet.id }, destination: { destinationType: 'ACCOUNT', accountId: usd.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_000_000 });
    const payload = quote.body.paymentInstructions[1].accountOrWalletInfo.payloadToSign;
    const stamp = (await cli(['wallet', 'sign', payload, '--key-file', keyFile])).trim();
    const paid = await api.post(`/quotes/${quote.body.id}/execute`, {}, { headers: { 'Service-Wallet-Signature': stamp } });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  });
});

describe('wallet payouts from the CLI: quotes execute / create --execute', () => {
  const fail = (args: string[]) => cli(args).then(() => new Error('the command succeeded'), (error: unknown) => error as Error);

  it('signs an embedded-wallet payout with the wallet login session; the 401 hint names it; amounts in major units', async () => {
    const api = await s.api.newPlatform();
    const { wallet, usd } = await walletCustomer(api);
    await api.post(`/sandbox/internal-accounts/${wallet.id}/fund`, { amount: 30_000_000 }); // 30 USDB (6 decimals)
    const dir = mkdtempSync(join(tmpdir(), 'wallet-payout-'));
    const keyFile = join(dir, 'session.json');
    const creds = ['--url', s.sandbox.origin, '--client-id', api.clientId, '--client-secret', api.clientSecret];
    const balance = async () => (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(wallet.customerId)}`)).body.data.find((a: { id: string }) => a.id === wallet.id).balance.amount;

    // no session yet: the CLI says what to run, before sending anything unsigned
    const noKey = await fail(['quotes', 'create', '--from', wallet.id, '--to', usd.id, '--amount', '10', '--execute', '--key-file', keyFile, ...creds]);
    expect(noKey.message).toContain(`pays from the embedded wallet ${wallet.id}, so its payout is signed with a wallet session key, and there is none at ${keyFile}`);
    expect(noKey.message).toContain(`run \`service-sandbox wallet login ${wallet.id}\``);
    expect(await balance()).toBe(30_000_000);

    await cli(['wallet', 'login', wallet.id, '--key-file', keyFile, ...creds]);
    // create --execute: created, then executed signed
    const paid = await cli(['quotes', 'create', '--from', wallet.id, '--to', usd.id, '--amount', '10', '--execute', '--key-file', keyFile, ...creds]);
    expect(paid).toMatch(/^quote Quote:\S+ (PROCESSING|COMPLETED): sends 10\.000000 USDB/);
    expect(await balance()).toBe(20_000_000);
    // create, then quotes execute <id>
    const created = await cli(['quotes', 'create', '--from', wallet.id, '--to', usd.id, '--amount', '5', '--json', ...creds]);
    const quote = JSON.parse(created) as { id: string; status: string };
    expect(await balance()).toBe(20_000_000);
    const executed = JSON.parse(await cli(['quotes', 'execute', quote.id, '--key-file', keyFile, '--json', ...creds])) as { id: string; status: string; transactionId: string };
    expect(executed.id).toBe(quote.id);
    expect(await balance()).toBe(15_000_000);
    expect((await api.get(`/transactions/${executed.transactionId}`)).body).toMatchObject({ type: 'OUTGOING', sentAmount: { amount: 5_000_000 } });

    // too much: the message speaks in the unit --amount takes
    const short = await fail(['quotes', 'create', '--from', wallet.id, '--to', usd.id, '--amount', '100', '--execute', '--key-file', keyFile, ...creds]);
    expect(short.message).toMatch(/^400 INVALID_AMOUNT Insufficient balance in InternalAccount:\S+: 15\.000000 USDB available, 100\.000000 USDB requested; add funds with `service-sandbox fund InternalAccount:\S+ <amount> USDB`$/);

    // a key that is no session of this wallet: the server's 401, with the wallet hint, not the credentials one
    const stranger = join(dir, 'stranger.key');
    writeFileSync(stranger, `${'1'.repeat(63)}2\n`);
    const refused = await fail(['quotes', 'create', '--from', wallet.id, '--to', usd.id, '--amount', '1', '--execute', '--key-file', stranger, ...creds]);
    expect(refused.message).toContain('401 UNAUTHORIZED Stamp key is not the key of an active session');
    expect(refused.message).toContain('run `service-sandbox wallet login <walletAccountId>` and execute again, or pass --key-file <file>');
    expect(refused.message).not.toContain('--client-secret');
    // another wallet's session file is caught before sending
    const other = await walletCustomer(api);
    const otherQuote = JSON.parse(await cli(['quotes', 'create', '--from', other.wallet.id, '--to', other.usd.id, '--amount', '1', '--json', ...creds])) as { id: string };
    const mismatch = await fail(['quotes', 'execute', otherQuote.id, '--key-file', keyFile, ...creds]);
    expect(mismatch.message).toContain(`the wallet session key in ${keyFile} is for ${wallet.id}, but quote ${otherQuote.id} pays from ${other.wallet.id}`);
    // a bad key file says what it should hold
    writeFileSync(stranger, 'not a key');
    expect((await fail(['quotes', 'execute', otherQuote.id, '--key-file', stranger, ...creds])).message).toContain('holds no wallet session key');
  });

  it('an ordinary account: insufficient funds in major units; a bad client secret keeps the credentials hint', async () => {
    const api = await s.api.newPlatform();
    const { usd } = await walletCustomer(api);
    const creds = ['--url', s.sandbox.origin, '--client-id', api.clientId, '--client-secret', api.clientSecret];
    const mxn = (await api.post('/customers/external-accounts', {
      customerId: usd.customerId,
      currency: 'MXN',
      accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: '002180000118359321', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Maria Garcia', countryOfResidence: 'MX', address: { line1: 'Av. Reforma 1', postalCode: '06600', country: 'MX' } } },
    })).body;
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 1250 });
    const short = await fail(['quotes', 'create', '--from', usd.id, '--to', mxn.id, '--amount', '25', '--execute', ...creds]);
    expect(short.message).toContain(`Insufficient balance in ${usd.id}: 12.50 USD available, 25.00 USD requested`);
    const badSecret = await fail(['quotes', 'execute', 'Quote:019a4f2c-8b1e-7c3d-9f00-1234567890ab', '--url', s.sandbox.origin, '--client-id', api.clientId, '--client-secret', 'wrong-secret']);
    expect(badSecret.message).toContain('(check --client-id/--client-secret');
  });
});
