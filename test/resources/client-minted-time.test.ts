import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateP256KeyPair } from '@turnkey/crypto';
import { totpCode } from '../../src/crypto/totp.js';
import { individual, useSandbox, type Api } from '../helpers/sandbox.js';
import { emailOtpLogin, signed, walletCustomer } from '../helpers/wallet-client.js';

// Times a client takes from its own clock (an ID token's iat/exp, an authenticator's TOTP code)
// hold against real time or the sandbox clock once a test moved it (issue 24). This file's
// sandbox is a day ahead for all its tests; the last one puts it back.

const s = useSandbox();
const DAY = 86_400;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** An ID token as the docs' generator makes it: iat = now, exp = now + 300, on the given clock (seconds). */
function idToken(nowSeconds: number, extra: Record<string, unknown> = {}): string {
  const claims = { iss: 'https://accounts.google.com', aud: 'client-123.apps.googleusercontent.com', sub: '1122334455', email: 'jane@example.com', iat: nowSeconds, exp: nowSeconds + 300, ...extra };
  return `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}.ZHVtbXk`;
}
/** The client's own clock (real time), in seconds. */
const realSeconds = () => Math.floor(Date.now() / 1000);
/** The sandbox clock, in seconds. */
async function sandboxSeconds(api: Api): Promise<number> {
  return Math.floor(Date.parse((await api.get('/_sandbox/clock')).body.now) / 1000);
}

beforeAll(async () => {
  await s.api.advance(DAY);
});

describe('a day ahead', () => {
  it('OAuth: registered with a token minted at real time, verified with one minted at sandbox time and one at real time; an expired one fails', async () => {
    const api = await s.api.newPlatform();
    expect(await sandboxSeconds(api)).toBeGreaterThanOrEqual(realSeconds() + DAY - 1);
    const { wallet } = await walletCustomer(api);
    const { key } = await emailOtpLogin(api, wallet.id);

    const created = await signed(api, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: wallet.id, oidcToken: idToken(realSeconds()) }, key);
    expect(created.second.status, JSON.stringify(created.second.body)).toBe(201);
    const id = created.second.body.id;

    const client = generateP256KeyPair();
    const nonce = createHash('sha256').update(client.publicKey).digest('hex');
    const atSandbox = await api.post(`/auth/credentials/${id}/verify`, { type: 'OAUTH', oidcToken: idToken(await sandboxSeconds(api), { nonce }), clientPublicKey: client.publicKey });
    expect(atSandbox.status, JSON.stringify(atSandbox.body)).toBe(200);
    const atReal = await api.post(`/auth/credentials/${id}/verify`, { type: 'OAUTH', oidcToken: idToken(realSeconds(), { nonce }), clientPublicKey: client.publicKey });
    expect(atReal.status, JSON.stringify(atReal.body)).toBe(200);

    // Expired on both clocks: minted 10 minutes ago on the real one.
    const expired = await api.post(`/auth/credentials/${id}/verify`, { type: 'OAUTH', oidcToken: idToken(realSeconds() - 600, { nonce }), clientPublicKey: client.publicKey });
    expect(expired.status).toBe(401);
    expect(expired.body.details.reason).toBe('oidcToken iat is more than 60 seconds old on the sandbox clock, and iat is more than 60 seconds old on real time');
    const pastExp = await api.post(`/auth/credentials/${id}/verify`, { type: 'OAUTH', oidcToken: idToken(realSeconds() - 10, { nonce, exp: realSeconds() - 1 }), clientPublicKey: client.publicKey });
    expect(pastExp.status).toBe(401);
    expect(pastExp.body.details.reason).toMatch(/ on the sandbox clock, and has expired \(exp\) on real time$/);
    // Registration is judged the same way: a token already past its exp on both clocks is refused.
    const stale = await api.post('/auth/credentials', { type: 'OAUTH', accountId: wallet.id, oidcToken: idToken((await sandboxSeconds(api)) - 600, { sub: 'other' }) });
    expect(stale.status).toBe(401);
    expect(stale.body.details.reason).toBe('oidcToken iat is more than 60 seconds old on the sandbox clock, and iat is in the future on real time');
    // All claims must hold on one clock: iat fresh on the sandbox clock with exp only ahead of real time holds on neither.
    const mixed = await api.post(`/auth/credentials/${id}/verify`, { type: 'OAUTH', oidcToken: idToken(await sandboxSeconds(api), { nonce, exp: realSeconds() + 300 }), clientPublicKey: client.publicKey });
    expect(mixed.status).toBe(401);
    expect(mixed.body.details.reason).toBe('oidcToken has expired (exp) on the sandbox clock, and iat is in the future on real time');
  });

  it('TOTP: the code of the authenticator app (real time) enrolls the factor, and so does one computed at sandbox time', async () => {
    const api = await s.api.newPlatform();
    const german = async () => {
      const res = await api.post('/customers', individual(['EUR'], { region: 'DE', nationality: 'DE', address: { line1: 'Hauptstrasse 1', postalCode: '10115', country: 'DE' } }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    for (const clock of ['real', 'sandbox'] as const) {
      const customerId = await german();
      const start = await api.post(`/sca/factors?customerId=${encodeURIComponent(customerId)}`, { type: 'TOTP' });
      expect(start.status).toBe(200);
      const at = clock === 'real' ? Date.now() : (await sandboxSeconds(api)) * 1000;
      const confirmed = await api.post(`/sca/factors/confirm?customerId=${encodeURIComponent(customerId)}`, { type: 'TOTP', secret: start.body.secret, code: totpCode(start.body.secret, at) });
      expect(confirmed.status, `${clock}: ${JSON.stringify(confirmed.body)}`).toBe(200);
    }
    // A code of an hour ago holds on neither clock.
    const customerId = await german();
    const start = await api.post(`/sca/factors?customerId=${encodeURIComponent(customerId)}`, { type: 'TOTP' });
    const old = await api.post(`/sca/factors/confirm?customerId=${encodeURIComponent(customerId)}`, { type: 'TOTP', secret: start.body.secret, code: totpCode(start.body.secret, Date.now() - 3600_000) });
    expect(old.status).toBe(400);
    expect(old.body.details.reason).toBe('INVALID_CODE');
  });

  it('reset() leaves the clock where it is; resetClock() puts it back to real time', async () => {
    const before = await sandboxSeconds(s.api);
    expect(before).toBeGreaterThanOrEqual(realSeconds() + DAY - 1);
    await s.sandbox.reset();
    expect(await sandboxSeconds(s.api)).toBeGreaterThanOrEqual(before);
    const now = await s.sandbox.resetClock();
    expect(Math.abs(Date.parse(now) - Date.now())).toBeLessThan(60_000);
    const clock = (await s.api.get('/_sandbox/clock')).body;
    expect(clock.offsetSeconds).toBe(0);
  });
});
