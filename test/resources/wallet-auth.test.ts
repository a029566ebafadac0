import { describe, expect, it } from 'vitest';
import { generateP256KeyPair } from '@turnkey/crypto';
import { useSandbox } from '../helpers/sandbox.js';
import { emailOtpLogin, encryptOtp, signed, stampWith, walletCustomer } from '../helpers/wallet-client.js';

const s = useSandbox();

async function balanceOf(api: typeof s.api, customerId: string, accountId: string): Promise<number> {
  const res = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`);
  return res.body.data.find((a: { id: string }) => a.id === accountId).balance.amount;
}

describe('embedded wallet: EMAIL_OTP login and a signed payout (the walkthrough)', () => {
  it('provisions a USDB EMBEDDED_WALLET with an EMAIL_OTP credential tied to the email', async () => {
    const api = await s.api.newPlatform();
    const { wallet, email } = await walletCustomer(api);
    expect(wallet.type).toBe('EMBEDDED_WALLET');
    const list = await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ type: 'EMAIL_OTP', nickname: email, accountId: wallet.id });
  });

  it('logs in with 000000, lists the session, pays a quote with {} and only the stamp; balance debited once', async () => {
    const api = await s.api.newPlatform();
    const { customer, wallet, usd } = await walletCustomer(api);
    expect((await api.post(`/sandbox/internal-accounts/${wallet.id}/fund`, { amount: 50_000_000 })).status).toBe(200);
    const { session, key } = await emailOtpLogin(api, wallet.id);
    expect(session.id).toMatch(/^Session:/);
    expect(session.encryptedSessionSigningKey).toBeUndefined();
    const sessions = await api.get(`/auth/sessions?accountId=${encodeURIComponent(wallet.id)}`);
    expect(sessions.body.data.map((x: { id: string }) => x.id)).toEqual([session.id]);

    const quote = await api.post('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: wallet.id },
      destination: { destinationType: 'ACCOUNT', accountId: usd.id },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 20_000_000,
    });
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    const kinds = quote.body.paymentInstructions.map((p: { accountOrWalletInfo: { accountType: string } }) => p.accountOrWalletInfo.accountType);
    expect(kinds).toEqual(['SPARK_WALLET', 'EMBEDDED_WALLET']);
    const payload = quote.body.paymentInstructions[1].accountOrWalletInfo.payloadToSign;

    const unsigned = await api.post(`/quotes/${quote.body.id}/execute`, {});
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.code).toBe('WALLET_SIGNATURE_MISSING');
    const other = generateP256KeyPair();
    const stranger = await api.post(`/quotes/${quote.body.id}/execute`, {}, { headers: { 'Service-Wallet-Signature': await stampWith(other, payload) } });
    expect(stranger.status).toBe(401);
    expect(stranger.body.details.reason).toMatch(/active session/);
    const overOther = await api.post(`/quotes/${quote.body.id}/execute`, {}, { headers: { 'Service-Wallet-Signature': await stampWith(key, `${payload} `) } });
    expect(overOther.body.code).toBe('WALLET_SIGNATURE_INVALID');
    expect(await balanceOf(api, customer.id, wallet.id)).toBe(50_000_000);

    const stamp = await stampWith(key, payload);
    const paid = await api.post(`/quotes/${quote.body.id}/execute`, {}, { headers: { 'Service-Wallet-Signature': stamp } });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await balanceOf(api, customer.id, wallet.id)).toBe(30_000_000);
    const again = await api.post(`/quotes/${quote.body.id}/execute`, {}, { headers: { 'Service-Wallet-Signature': stamp } });
    expect(again.status).toBe(409);
    expect(await balanceOf(api, customer.id, wallet.id)).toBe(30_000_000);
  });

  it('a wrong OTP is 401 Invalid OTP code and creates no session', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const list = await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
    const id = list.body.data[0].id;
    const challenge = await api.post(`/auth/credentials/${id}/challenge`, {});
    const tek = generateP256KeyPair();
    const wrong = await api.post(`/auth/credentials/${id}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: encryptOtp(challenge.body.otpEncryptionTargetBundle, '123456', tek) });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'Invalid OTP code' } });
    expect((await api.get(`/auth/sessions?accountId=${encodeURIComponent(wallet.id)}`)).body.data).toEqual([]);
    // The OTP stays outstanding: the right code still works.
    const right = await api.post(`/auth/credentials/${id}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: encryptOtp(challenge.body.otpEncryptionTargetBundle, '000000', tek) });
    expect(right.status).toBe(202);
  });

  it('a replayed Request-Id is 401 and issues no second session', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const list = await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
    const id = list.body.data[0].id;
    const challenge = await api.post(`/auth/credentials/${id}/challenge`, {});
    const tek = generateP256KeyPair();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: encryptOtp(challenge.body.otpEncryptionTargetBundle, '000000', tek) };
    const first = await api.post(`/auth/credentials/${id}/verify`, body);
    const headers = { 'Service-Wallet-Signature': await stampWith(tek, first.body.payloadToSign), 'Request-Id': first.body.requestId };
    expect((await api.post(`/auth/credentials/${id}/verify`, body, { headers })).status).toBe(200);
    const replay = await api.post(`/auth/credentials/${id}/verify`, body, { headers });
    expect(replay.status).toBe(401);
    expect(replay.body.details.reason).toMatch(/already used/);
    expect((await api.get(`/auth/sessions?accountId=${encodeURIComponent(wallet.id)}`)).body.data).toHaveLength(1);
  });

  it('sessions last 15 minutes on the sandbox clock; refresh and revoke', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const { session, key } = await emailOtpLogin(api, wallet.id);
    const next = generateP256KeyPair();
    const refreshed = await signed(api, 'POST', `/auth/sessions/${session.id}/refresh`, { clientPublicKey: next.publicKey }, key);
    expect(refreshed.second.status, JSON.stringify(refreshed.second.body)).toBe(201);
    const revoke = await signed(api, 'DELETE', `/auth/sessions/${session.id}`, undefined, next);
    expect(revoke.first.body.type).toBe('EMAIL_OTP');
    expect(revoke.second.status).toBe(204);
    expect((await api.delete(`/auth/sessions/${session.id}`)).status).toBe(404);
    await s.api.advance(15 * 60 + 1);
    expect((await api.get(`/auth/sessions?accountId=${encodeURIComponent(wallet.id)}`)).body.data).toEqual([]);
  });

  it('a tied EMAIL_OTP email change is a signed retry that renames the credential', async () => {
    const api = await s.api.newPlatform();
    const { customer, wallet } = await walletCustomer(api);
    const { key } = await emailOtpLogin(api, wallet.id);
    const update = { customerType: 'INDIVIDUAL', email: 'new.address@example.com' };
    const first = await api.patch(`/customers/${customer.id}`, update);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect((await api.get(`/customers/${customer.id}`)).body.email).toBe(customer.email);
    const headers = { 'Service-Wallet-Signature': await stampWith(key, first.body.payloadToSign), 'Request-Id': first.body.requestId };
    const done = await api.patch(`/customers/${customer.id}`, update, { headers });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.email).toBe('new.address@example.com');
    const list = await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
    expect(list.body.data[0].nickname).toBe('new.address@example.com');
    // A second change whose credential set changes before the retry.
    const next = { customerType: 'INDIVIDUAL', email: 'third@example.com' };
    const pending = await api.patch(`/customers/${customer.id}`, next);
    await signed(api, 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: wallet.id }, key);
    const list2 = await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
    expect(list2.body.data).toHaveLength(2);
    // SMS_OTP does not take part in an email change, so the tied EMAIL_OTP set is unchanged: still 200.
    const ok = await api.patch(`/customers/${customer.id}`, next, { headers: { 'Service-Wallet-Signature': await stampWith(key, pending.body.payloadToSign), 'Request-Id': pending.body.requestId } });
    expect(ok.status).toBe(200);
    // Untied fields update at once.
    expect((await api.patch(`/customers/${customer.id}`, { customerType: 'INDIVIDUAL', fullName: 'Jane Q Smith' })).status).toBe(200);
  });

  it('the deprecated sandbox-valid-signature literal is still accepted on a signed retry', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const first = await api.patch(`/internal-accounts/${wallet.id}`, { privateEnabled: true });
    const second = await api.patch(`/internal-accounts/${wallet.id}`, { privateEnabled: true }, { headers: { 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': first.body.requestId } });
    expect(second.status).toBe(200);
    expect(second.body.privateEnabled).toBe(true);
  });
});
