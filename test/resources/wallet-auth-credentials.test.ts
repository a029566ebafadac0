import { describe, expect, it } from 'vitest';
import { validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { decryptCredentialBundle, generateP256KeyPair, hpkeDecrypt } from '@turnkey/crypto';
import { createHash } from 'node:crypto';
import { walletRules } from '../../src/rules/wallet-rules.js';
import { useSandbox } from '../helpers/sandbox.js';
import { emailOtpLogin, encryptOtp, signed, stampWith, walletCustomer } from '../helpers/wallet-client.js';
import { SoftwareAuthenticator } from '../helpers/webauthn-authenticator.js';
import { activeCard, auth, simulate } from './cards-helpers.js';

const s = useSandbox();
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function nowSeconds(): Promise<number> {
  const res = await s.api.get<{ now: string }>('/_sandbox/clock');
  return Math.floor(Date.parse(res.body.now) / 1000);
}

async function idToken(extra: Record<string, unknown> = {}) {
  const now = await nowSeconds();
  const claims = { iss: 'https://accounts.google.com', aud: 'client-123.apps.googleusercontent.com', sub: '1122334455', email: 'jane@example.com', iat: now - 5, exp: now + 3600, ...extra };
  return `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}.ZHVtbXk`;
}

const sessionsOf = async (api: typeof s.api, walletId: string) => (await api.get(`/auth/sessions?accountId=${encodeURIComponent(walletId)}`)).body.data as { id: string }[];

describe('additional credentials by signed retry', () => {
  it('SMS_OTP: 202, then 201 with a target bundle; then OTP login on it', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const { key } = await emailOtpLogin(api, wallet.id);
    const { first, second } = await signed(api, 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: wallet.id }, key);
    expect(first.body.type).toBe('SMS_OTP');
    expect(JSON.parse(first.body.payloadToSign).type).toBe('ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER');
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body).toMatchObject({ type: 'SMS_OTP', nickname: '+14155550123' });
    const tek = generateP256KeyPair();
    const body = { type: 'SMS_OTP', encryptedOtpBundle: encryptOtp(second.body.otpEncryptionTargetBundle, '000000', tek) };
    const login = await signed(api, 'POST', `/auth/credentials/${second.body.id}/verify`, body, tek);
    expect(login.second.status).toBe(200);
    expect(login.second.body.type).toBe('SMS_OTP');
    const dup = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: wallet.id });
    expect(dup.body.code).toBe('SMS_OTP_CREDENTIAL_ALREADY_EXISTS');
  });

  it('rejects a retry body other than the bound one, and a stamp by a key of another account, changing nothing', async () => {
    const api = await s.api.newPlatform();
    const a = await walletCustomer(api);
    const b = await walletCustomer(api);
    const { key } = await emailOtpLogin(api, a.wallet.id);
    const { key: otherKey } = await emailOtpLogin(api, b.wallet.id);
    const first = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: a.wallet.id });
    const headers = { 'Service-Wallet-Signature': await stampWith(key, first.body.payloadToSign), 'Request-Id': first.body.requestId };
    const mismatch = await api.post('/auth/credentials', { type: 'EMAIL_OTP', accountId: a.wallet.id }, { headers });
    expect(mismatch.body.code).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
    const foreign = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: a.wallet.id }, { headers: { ...headers, 'Service-Wallet-Signature': await stampWith(otherKey, first.body.payloadToSign) } });
    expect(foreign.status).toBe(401);
    expect(foreign.body.details.reason).toMatch(/active session of InternalAccount/);
    const noId = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: a.wallet.id }, { headers: { 'Service-Wallet-Signature': headers['Service-Wallet-Signature'] } });
    expect(noId.body.code).toBe('REQUEST_ID_MISSING');
    const noSig = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: a.wallet.id }, { headers: { 'Request-Id': first.body.requestId } });
    expect(noSig.body.code).toBe('WALLET_SIGNATURE_MISSING');
    const malformed = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: a.wallet.id }, { headers: { ...headers, 'Service-Wallet-Signature': 'bm90LWpzb24' } });
    expect(malformed.body.code).toBe('WALLET_SIGNATURE_MALFORMED');
    expect((await api.get(`/auth/credentials?accountId=${encodeURIComponent(a.wallet.id)}`)).body.data).toHaveLength(1);
    // The pending request is still usable after the failures, and expires on the clock.
    await s.api.advance(5 * 60 + 1);
    const late = await api.post('/auth/credentials', { type: 'SMS_OTP', accountId: a.wallet.id }, { headers });
    expect(late.status).toBe(401);
    expect(late.body.details.reason).toMatch(/expired/);
  });

  it('OAUTH: register with a minted token, verify with nonce = sha256(clientPublicKey); legacy key decrypts with decryptCredentialBundle', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const { key } = await emailOtpLogin(api, wallet.id);
    const created = await signed(api, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: wallet.id, oidcToken: await idToken() }, key);
    expect(created.second.status, JSON.stringify(created.second.body)).toBe(201);
    expect(created.second.body.nickname).toBe('jane@example.com');
    const client = generateP256KeyPair();
    const nonce = createHash('sha256').update(client.publicKey).digest('hex');
    const verified = await api.post(`/auth/credentials/${created.second.body.id}/verify`, { type: 'OAUTH', oidcToken: await idToken({ nonce }), clientPublicKey: client.publicKey });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.encryptedSessionSigningKey).toBeUndefined();
    const badNonce = await api.post(`/auth/credentials/${created.second.body.id}/verify`, { type: 'OAUTH', oidcToken: await idToken({ nonce: 'x' }), clientPublicKey: client.publicKey });
    expect(badNonce.status).toBe(401);
    expect(badNonce.body.details.reason).toMatch(/nonce/);
    const otherSub = await api.post(`/auth/credentials/${created.second.body.id}/verify`, { type: 'OAUTH', oidcToken: await idToken({ nonce, sub: 'someone' }), clientPublicKey: client.publicKey });
    expect(otherSub.status).toBe(401);
    // Legacy flow: uncompressed key, the session key sealed to it.
    const legacy = generateP256KeyPair();
    const legacyNonce = createHash('sha256').update(legacy.publicKeyUncompressed).digest('hex');
    const old = await api.post(`/auth/credentials/${created.second.body.id}/verify`, { type: 'OAUTH', oidcToken: await idToken({ nonce: legacyNonce }), clientPublicKey: legacy.publicKeyUncompressed });
    expect(old.status).toBe(200);
    const sessionKey = decryptCredentialBundle(old.body.encryptedSessionSigningKey, legacy.privateKey);
    expect(sessionKey).toMatch(/^[0-9a-f]{64}$/);
    // The decrypted key signs for the wallet.
    const pubOf = (await import('@turnkey/crypto')).getPublicKey;
    const sessionPair = { privateKey: sessionKey, publicKey: Buffer.from(pubOf(sessionKey, true)).toString('hex'), publicKeyUncompressed: '' };
    const patch = await signed(api, 'PATCH', `/internal-accounts/${wallet.id}`, { privateEnabled: true }, sessionPair);
    expect(patch.second.status).toBe(200);
  });

  it('409 EMAIL_OTP_CREDENTIAL_SET_CHANGED when the tied EMAIL_OTP set changed between the legs of an email change', async () => {
    const api = await s.api.newPlatform();
    const { customer, wallet } = await walletCustomer(api);
    const email = await emailOtpLogin(api, wallet.id);
    const sms = await signed(api, 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: wallet.id }, email.key);
    const tek = generateP256KeyPair();
    await signed(api, 'POST', `/auth/credentials/${sms.second.body.id}/verify`, { type: 'SMS_OTP', encryptedOtpBundle: encryptOtp(sms.second.body.otpEncryptionTargetBundle, '000000', tek) }, tek);
    const update = { customerType: 'INDIVIDUAL', email: 'moved@example.com' };
    const first = await api.patch(`/customers/${customer.id}`, update);
    expect(first.status).toBe(202);
    expect((await signed(api, 'DELETE', `/auth/credentials/${email.credential.id}`, undefined, tek)).second.status).toBe(204);
    const late = await api.patch(`/customers/${customer.id}`, update, { headers: { 'Service-Wallet-Signature': await stampWith(tek, first.body.payloadToSign), 'Request-Id': first.body.requestId } });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('EMAIL_OTP_CREDENTIAL_SET_CHANGED');
    expect((await api.get(`/customers/${customer.id}`)).body.email).toBe(customer.email);
  });

  it('409 EMAIL_OTP_EMAIL_ALREADY_EXISTS when the new email is already another wallet’s EMAIL_OTP email; nothing changes', async () => {
    const api = await s.api.newPlatform();
    const first = await walletCustomer(api);
    const second = await walletCustomer(api);
    // Each wallet holds its EMAIL_OTP credential from its first use.
    for (const { wallet } of [first, second]) expect((await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`)).status).toBe(200);
    const taken = await api.patch(`/customers/${second.customer.id}`, { customerType: 'INDIVIDUAL', email: first.email.toUpperCase() });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('EMAIL_OTP_EMAIL_ALREADY_EXISTS');
    expect((await api.get(`/customers/${second.customer.id}`)).body.email).toBe(second.email);
    // A free email is the usual signed retry; a customer without a wallet may share the email.
    expect((await api.patch(`/customers/${second.customer.id}`, { customerType: 'INDIVIDUAL', email: 'free@example.com' })).status).toBe(202);
    const plain = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Nora Plain', currencies: ['USD'] })).body;
    expect((await api.patch(`/customers/${plain.id}`, { customerType: 'INDIVIDUAL', email: first.email })).status).toBe(200);
    // Another platform's wallets are not this platform's.
    const other = await s.api.newPlatform();
    const elsewhere = await walletCustomer(other);
    expect((await other.get(`/auth/credentials?accountId=${encodeURIComponent(elsewhere.wallet.id)}`)).status).toBe(200);
    expect((await other.patch(`/customers/${elsewhere.customer.id}`, { customerType: 'INDIVIDUAL', email: first.email })).status).toBe(202);
  });

  it('OAUTH: malformed token 400, unsupported issuer 400, stale iat 401, the retired literal rejected', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const post = (oidcToken: string) => api.post('/auth/credentials', { type: 'OAUTH', accountId: wallet.id, oidcToken });
    expect((await post('abc')).body.code).toBe('INVALID_INPUT');
    expect((await post(await idToken({ iss: 'https://evil.example' }))).body.code).toBe('INVALID_INPUT');
    const stale = await post(await idToken({ iat: (await nowSeconds()) - 120 }));
    expect(stale.status).toBe(401);
    expect(stale.body.details.reason).toMatch(/60 seconds/);
    expect((await post('sandbox-valid-oidc-token')).status).toBe(401);
  });

  it('PASSKEY: register with an attestation, challenge with clientPublicKey, verify with an assertion (counter, challenge, Request-Id)', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const { key } = await emailOtpLogin(api, wallet.id);
    const authenticator = new SoftwareAuthenticator({ rpId: 'wallet.example', origin: 'https://wallet.example' });
    const regChallenge = isoBase64URL.fromUTF8String(`reg-${Math.random()}`);
    const reg = authenticator.register(regChallenge, { userId: wallet.id, userName: 'jane' });
    const body = {
      type: 'PASSKEY',
      accountId: wallet.id,
      nickname: 'iPhone Face-ID',
      challenge: regChallenge,
      attestation: { credentialId: reg.id, clientDataJson: reg.response.clientDataJSON, attestationObject: reg.response.attestationObject, transports: ['internal', 'hybrid'] },
    };
    const created = await signed(api, 'POST', '/auth/credentials', body, key);
    expect(created.second.status, JSON.stringify(created.second.body)).toBe(201);
    expect(created.second.body.credentialId).toBe(authenticator.id);
    const id = created.second.body.id;
    const client = generateP256KeyPair();
    const challenge = await api.post(`/auth/credentials/${id}/challenge`, { clientPublicKey: client.publicKey });
    expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
    expect(challenge.body.challenge).toMatch(/^[0-9a-f]{64}$/);
    const assert = (faults = {}) => {
      const a = authenticator.assert(isoBase64URL.fromUTF8String(challenge.body.challenge), faults);
      return { type: 'PASSKEY', assertion: { credentialId: a.id, clientDataJson: a.response.clientDataJSON, authenticatorData: a.response.authenticatorData, signature: a.response.signature, userHandle: a.response.userHandle } };
    };
    expect((await api.post(`/auth/credentials/${id}/verify`, assert())).body.code).toBe('REQUEST_ID_MISSING');
    const headers = { 'Request-Id': challenge.body.requestId };
    const badOrigin = await api.post(`/auth/credentials/${id}/verify`, assert({ origin: 'https://evil.example' }), { headers });
    expect(badOrigin.status).toBe(401);
    expect(badOrigin.body.details.reason).toMatch(/origin/i);
    const ok = await api.post(`/auth/credentials/${id}/verify`, assert(), { headers });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.type).toBe('PASSKEY');
    expect((await api.post(`/auth/credentials/${id}/verify`, assert(), { headers })).status).toBe(401);
    // The passkey session signs with the client key of the challenge.
    const patch = await signed(api, 'PATCH', `/internal-accounts/${wallet.id}`, { privateEnabled: true }, client);
    expect(patch.second.status).toBe(200);
    expect((await api.post('/auth/credentials', body)).body.code).toBe('PASSKEY_CREDENTIAL_ALREADY_EXISTS');
  });
});

describe('revoke, export, privacy, delegated keys', () => {
  it('revokes a credential only with a session of another credential; the account keeps one', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const email = await emailOtpLogin(api, wallet.id);
    const only = await api.delete(`/auth/credentials/${email.credential.id}`);
    expect(only.status).toBe(400);
    const sms = await signed(api, 'POST', '/auth/credentials', { type: 'SMS_OTP', accountId: wallet.id }, email.key);
    const self = await signed(api, 'DELETE', `/auth/credentials/${email.credential.id}`, undefined, email.key);
    expect(self.second.status).toBe(401);
    expect(self.second.body.details.reason).toMatch(/other than the one being revoked/);
    const tek = generateP256KeyPair();
    const login = await signed(api, 'POST', `/auth/credentials/${sms.second.body.id}/verify`, { type: 'SMS_OTP', encryptedOtpBundle: encryptOtp(sms.second.body.otpEncryptionTargetBundle, '000000', tek) }, tek);
    expect(login.second.status).toBe(200);
    const revoke = await signed(api, 'DELETE', `/auth/credentials/${email.credential.id}`, undefined, tek);
    expect(revoke.first.body.type).toBe('EMAIL_OTP');
    expect(revoke.second.status).toBe(204);
    const left = await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
    expect(left.body.data.map((c: { type: string }) => c.type)).toEqual(['SMS_OTP']);
    expect((await sessionsOf(api, wallet.id)).map((x) => x.id)).toEqual([login.second.body.id]);
  });

  it('exports the wallet sealed to the bound key (decrypted with hpkeDecrypt); a different key on the retry is refused', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const { key } = await emailOtpLogin(api, wallet.id);
    const target = generateP256KeyPair();
    const first = await api.post(`/internal-accounts/${wallet.id}/export`, { clientPublicKey: target.publicKeyUncompressed });
    expect(first.status).toBe(202);
    const headers = { 'Service-Wallet-Signature': await stampWith(key, first.body.payloadToSign), 'Request-Id': first.body.requestId };
    const swapped = await api.post(`/internal-accounts/${wallet.id}/export`, { clientPublicKey: generateP256KeyPair().publicKeyUncompressed }, { headers });
    expect(swapped.body.code).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
    const done = await api.post(`/internal-accounts/${wallet.id}/export`, { clientPublicKey: target.publicKeyUncompressed }, { headers });
    expect(done.status).toBe(200);
    const bundle = JSON.parse(done.body.encryptedWalletCredentials);
    // Signed by the published sandbox enclave key (issue 24; wallet-auth-clients.test.ts verifies it with @turnkey/crypto).
    expect(bundle).toMatchObject({ version: 'v1.0.0', dataSignature: expect.stringMatching(/^30[0-9a-f]+$/), enclaveQuorumPublic: walletRules.enclaveQuorumPublic });
    const data = JSON.parse(Buffer.from(bundle.data, 'hex').toString());
    const decrypted = hpkeDecrypt({ ciphertextBuf: Buffer.from(data.ciphertext, 'hex'), encappedKeyBuf: Buffer.from(data.encappedPublic, 'hex'), receiverPriv: target.privateKey });
    // The wallet mnemonic: 24 BIP-39 English words with a valid checksum, the same on every export.
    const mnemonic = new TextDecoder().decode(decrypted);
    expect(mnemonic.split(' ')).toHaveLength(24);
    expect(validateMnemonic(mnemonic, english)).toBe(true);
    const again = await signed(api, 'POST', `/internal-accounts/${wallet.id}/export`, { clientPublicKey: target.publicKeyUncompressed }, key);
    const againData = JSON.parse(Buffer.from(JSON.parse(again.second.body.encryptedWalletCredentials).data, 'hex').toString());
    const secondMnemonic = hpkeDecrypt({ ciphertextBuf: Buffer.from(againData.ciphertext, 'hex'), encappedKeyBuf: Buffer.from(againData.encappedPublic, 'hex'), receiverPriv: target.privateKey });
    expect(new TextDecoder().decode(secondMnemonic)).toBe(mnemonic);
    const compressed = await api.post(`/internal-accounts/${wallet.id}/export`, { clientPublicKey: target.publicKey });
    expect(compressed.body.code).toBe('INVALID_INPUT');
  });

  it('privacy PATCH: 202 then 200 with privateEnabled and an INTERNAL_ACCOUNT.STATUS_UPDATED event', async () => {
    const api = await s.api.newPlatform();
    const { wallet, usd } = await walletCustomer(api);
    const { key } = await emailOtpLogin(api, wallet.id);
    const { second } = await signed(api, 'PATCH', `/internal-accounts/${wallet.id}`, { privateEnabled: true }, key);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: wallet.id, type: 'EMBEDDED_WALLET', privateEnabled: true });
    expect((await api.patch(`/internal-accounts/${wallet.id}`, {})).body.code).toBe('INVALID_INPUT');
    expect((await api.patch(`/internal-accounts/${usd.id}`, { privateEnabled: true })).status).toBe(400);
    expect((await api.patch('/internal-accounts/InternalAccount:00000000-0000-7000-8000-000000000000', { privateEnabled: true })).status).toBe(404);
  });

  it('delegated key: three legs, PENDING when abandoned, one ACTIVE per funding source, revoke; the wallet funds its card only while one is ACTIVE', async () => {
    const api = await s.api.newPlatform();
    let made;
    // A wallet id ending in a card funding-source magic suffix (002, 003) would be ineligible by chance.
    do made = await walletCustomer(api);
    while (['002', '003'].includes(made.wallet.id.slice(-3)));
    const { customer, wallet } = made;
    const { key } = await emailOtpLogin(api, wallet.id);
    expect((await api.post(`/sandbox/internal-accounts/${wallet.id}/fund`, { amount: 50_00 })).status).toBe(200);
    const card = await activeCard(api, customer.id, [wallet.id]);
    const spend = () => simulate(api, card.id, 'authorization', auth(5_00, 'BLUE BOTTLE COFFEE SF', 'USDB'));
    // openapi POST /cards: until an ACTIVE delegated key exists, decisioning cannot use the wallet.
    expect(await spend()).toMatchObject({ outcome: 'DECLINED' });

    // The card must be the platform's and list the wallet among its funding sources.
    const missingCard = await api.post('/auth/delegated-keys', { cardId: 'Card:019542f5-b3e7-1d02-0000-000000000010', internalAccountId: wallet.id, nickname: 'k' });
    expect(missingCard.status).toBe(404);
    const other = await activeCard(api, customer.id, [(await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data.find((a: { type: string; balance: { currency: { code: string } } }) => a.type !== 'EMBEDDED_WALLET' && a.balance.currency.code === 'USD').id]);
    const notASource = await api.post('/auth/delegated-keys', { cardId: other.id, internalAccountId: wallet.id, nickname: 'k' });
    expect(notASource.status).toBe(404);
    expect(notASource.body.message).toContain('fundingSources');

    const body = { cardId: card.id, internalAccountId: wallet.id, nickname: 'Card payments key' };
    const leg = async (headers?: Record<string, string>) => api.post('/auth/delegated-keys', body, headers ? { headers } : {});
    const one = await leg();
    expect(one.status).toBe(202);
    const two = await leg({ 'Service-Wallet-Signature': await stampWith(key, one.body.payloadToSign), 'Request-Id': one.body.requestId });
    expect(two.status, JSON.stringify(two.body)).toBe(202);
    const pending = await api.get(`/auth/delegated-keys?accountId=${encodeURIComponent(wallet.id)}`);
    expect(pending.body.data.map((k: { status: string }) => k.status)).toEqual(['PENDING']);
    const three = await leg({ 'Service-Wallet-Signature': await stampWith(key, two.body.payloadToSign), 'Request-Id': two.body.requestId });
    expect(three.status, JSON.stringify(three.body)).toBe(201);
    expect(three.body).toMatchObject({ status: 'ACTIVE', accountId: wallet.id, cardId: body.cardId });
    expect(three.body.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect((await leg()).status).toBe(409);
    expect((await api.get(`/auth/delegated-keys/${three.body.id}`)).body.status).toBe('ACTIVE');
    expect((await api.get(`/auth/delegated-keys?fundingSourceId=${encodeURIComponent(three.body.fundingSourceId)}`)).body.data).toHaveLength(1);
    expect((await api.get('/auth/delegated-keys')).status).toBe(400);
    const approved = await spend();
    expect(approved).toMatchObject({ outcome: 'APPROVED' });
    expect((await api.get(`/transactions/${approved.cardTransactionId}`)).body.accountId).toBe(wallet.id);
    expect((await api.delete(`/auth/delegated-keys/${three.body.id}`)).status).toBe(204);
    expect((await api.delete(`/auth/delegated-keys/${three.body.id}`)).status).toBe(400);
    // Revoked: the wallet stops funding the card.
    expect(await spend()).toMatchObject({ outcome: 'DECLINED' });
    expect((await leg()).status).toBe(202);
  });
});
