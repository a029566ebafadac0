import { describe, expect, it } from 'vitest';
import { formatHpkeBuf, generateP256KeyPair, hpkeEncrypt } from '@turnkey/crypto';
import { useSandbox } from '../helpers/sandbox.js';
import { emailOtpLogin, encryptOtp, stampWith, walletCustomer } from '../helpers/wallet-client.js';

const s = useSandbox();
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A wallet with an outstanding OTP, and a check that no session was created. */
async function otpSetup() {
  const api = await s.api.newPlatform();
  const { wallet } = await walletCustomer(api);
  const list = await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
  const id = list.body.data[0].id as string;
  const challenge = await api.post(`/auth/credentials/${id}/challenge`, {});
  const noSession = async () => expect((await api.get(`/auth/sessions?accountId=${encodeURIComponent(wallet.id)}`)).body.data).toEqual([]);
  return { api, wallet, id, bundle: challenge.body.otpEncryptionTargetBundle as string, noSession };
}

describe('bad input: a documented 4xx naming the check, no state change', () => {
  it('encryptedOtpBundle: not JSON, bad hex, truncated, tampered, wrong curve point, bad plaintext, bad TEK', async () => {
    const { api, id, bundle, noSession } = await otpSetup();
    const tek = generateP256KeyPair();
    const good = JSON.parse(encryptOtp(bundle, '000000', tek)) as { encappedPublic: string; ciphertext: string };
    const target = JSON.parse(Buffer.from(JSON.parse(bundle).data, 'hex').toString()).targetPublic as string;
    const sealTo = (plaintext: string) => formatHpkeBuf(hpkeEncrypt({ plainTextBuf: new TextEncoder().encode(plaintext), targetKeyBuf: Buffer.from(target, 'hex') }));
    const tampered = good.ciphertext.slice(0, -2) + (good.ciphertext.endsWith('00') ? '01' : '00');
    const cases: [string, string, RegExp][] = [
      ['not json', 'not json', /JSON/],
      ['null', 'null', /string encappedPublic/],
      ['bad hex', JSON.stringify({ ...good, ciphertext: 'zz' }), /hex/],
      ['odd hex', JSON.stringify({ ...good, encappedPublic: good.encappedPublic.slice(1) }), /hex/],
      ['compressed enc', JSON.stringify({ ...good, encappedPublic: `02${good.encappedPublic.slice(2, 66)}` }), /uncompressed/],
      ['point off the curve', JSON.stringify({ ...good, encappedPublic: `04${'11'.repeat(64)}` }), /not a point/],
      ['truncated', JSON.stringify({ ...good, ciphertext: good.ciphertext.slice(0, 20) }), /shorter/],
      ['tampered', JSON.stringify({ ...good, ciphertext: tampered }), /does not decrypt/],
      ['plaintext not json', sealTo('hello'), /not JSON/],
      ['plaintext fields', sealTo(JSON.stringify({ otp_code: 0 })), /otp_code/],
      ['tek wrong length', sealTo(JSON.stringify({ otp_code: '000000', public_key: tek.publicKey.slice(0, 60) })), /compressed/],
      ['tek off the curve', sealTo(JSON.stringify({ otp_code: '000000', public_key: `02${'00'.repeat(31)}01` })), /not a point/],
    ];
    for (const [name, encryptedOtpBundle, reason] of cases) {
      const res = await api.post(`/auth/credentials/${id}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle });
      expect(res.status, name).toBe(400);
      expect(res.body.code, name).toBe('INVALID_INPUT');
      expect(res.body.details.reason, name).toMatch(reason);
    }
    const typeMismatch = await api.post(`/auth/credentials/${id}/verify`, { type: 'SMS_OTP', encryptedOtpBundle: JSON.stringify(good) });
    expect(typeMismatch.status).toBe(400);
    await noSession();
    // The OTP is still outstanding after every refusal.
    expect((await api.post(`/auth/credentials/${id}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: JSON.stringify(good) })).status).toBe(202);
  });

  it('without a challenge, or after the OTP expired, verify is 401', async () => {
    const { api, id, bundle, noSession } = await otpSetup();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: encryptOtp(bundle, '000000', generateP256KeyPair()) };
    await s.api.advance(301);
    const late = await api.post(`/auth/credentials/${id}/verify`, body);
    expect(late.status).toBe(401);
    expect(late.body.details.reason).toMatch(/No OTP is outstanding/);
    await noSession();
  });

  it('the OTP signed retry: stamp by another key than the TEK, body changed, malformed stamps', async () => {
    const { api, id, bundle, noSession } = await otpSetup();
    const tek = generateP256KeyPair();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: encryptOtp(bundle, '000000', tek) };
    const first = await api.post(`/auth/credentials/${id}/verify`, body);
    const retry = (sig: string, b: unknown = body) => api.post(`/auth/credentials/${id}/verify`, b, { headers: { 'Service-Wallet-Signature': sig, 'Request-Id': first.body.requestId } });
    const other = await retry(await stampWith(generateP256KeyPair(), first.body.payloadToSign));
    expect(other.body).toMatchObject({ status: 401, code: 'WALLET_SIGNATURE_INVALID' });
    const changed = await retry(await stampWith(tek, first.body.payloadToSign), { type: 'EMAIL_OTP', encryptedOtpBundle: encryptOtp(bundle, '000000', tek) });
    expect(changed.body.code).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
    const stamp = JSON.parse(Buffer.from(await stampWith(tek, first.body.payloadToSign), 'base64url').toString());
    for (const bad of [
      'not base64!',
      b64({ ...stamp, publicKey: tek.publicKeyUncompressed }),
      b64({ ...stamp, publicKey: stamp.publicKey.slice(0, 64) }),
      b64({ ...stamp, publicKey: `02${'00'.repeat(31)}01` }),
      b64({ ...stamp, signature: 'xyz' }),
      b64({ ...stamp, scheme: 'SIGNATURE_SCHEME_TK_API_ED25519' }),
    ]) {
      expect((await retry(bad)).body.code).toBe('WALLET_SIGNATURE_MALFORMED');
    }
    const wrongId = await api.post(`/auth/credentials/${id}/verify`, body, { headers: { 'Service-Wallet-Signature': await stampWith(tek, first.body.payloadToSign), 'Request-Id': 'Request:00000000-0000-7000-8000-000000000000' } });
    expect(wrongId.status).toBe(401);
    await noSession();
    expect((await retry(await stampWith(tek, first.body.payloadToSign))).status).toBe(200);
  });

  it('an expired session cannot sign, refresh or be revoked; a refresh key off the curve is 400', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const { session, key } = await emailOtpLogin(api, wallet.id);
    const offCurve = await api.post(`/auth/sessions/${session.id}/refresh`, { clientPublicKey: `02${'00'.repeat(31)}01` });
    expect(offCurve.status).toBe(400);
    const first = await api.patch(`/internal-accounts/${wallet.id}`, { privateEnabled: true });
    await s.api.advance(15 * 60 + 1);
    const late = await api.patch(`/internal-accounts/${wallet.id}`, { privateEnabled: true }, { headers: { 'Service-Wallet-Signature': await stampWith(key, first.body.payloadToSign), 'Request-Id': first.body.requestId } });
    expect(late.status).toBe(401);
    const refresh = await api.post(`/auth/sessions/${session.id}/refresh`, { clientPublicKey: generateP256KeyPair().publicKey });
    expect(refresh.status).toBe(401);
    expect((await api.delete(`/auth/sessions/${session.id}`)).status).toBe(404);
    expect((await api.get('/auth/sessions?accountId=nope')).status).toBe(400);
    expect((await api.get('/auth/credentials')).status).toBe(400);
  });

  it('unknown ids are 404; another platform’s wallet is invisible', async () => {
    const api = await s.api.newPlatform();
    const other = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    expect((await other.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`)).body.data).toEqual([]);
    expect((await other.post(`/internal-accounts/${wallet.id}/export`, { clientPublicKey: generateP256KeyPair().publicKeyUncompressed })).status).toBe(404);
    expect((await api.post('/auth/credentials/AuthMethod:00000000-0000-7000-8000-000000000000/challenge', {})).status).toBe(404);
    expect((await api.get('/auth/delegated-keys/DelegatedKey:nope')).status).toBe(404);
    expect((await api.post('/auth/credentials', { type: 'EMAIL_OTP', accountId: 'InternalAccount:00000000-0000-7000-8000-000000000000' })).status).toBe(404);
  });
});
