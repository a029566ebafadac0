import { mkdtempSync, readFileSync, statSync } from 'node:fs';
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
