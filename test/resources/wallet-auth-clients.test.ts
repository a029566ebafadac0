import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { decryptExportBundle, encryptOtpCodeToBundle, generateP256KeyPair, hpkeDecrypt, verifyOtpVerificationToken } from '@turnkey/crypto';
import { useSandbox, type Api } from '../helpers/sandbox.js';
import { emailOtpLogin, stampWith, walletCustomer, type KeyPair } from '../helpers/wallet-client.js';

// Real clients unchanged (issue 24): the production header name for the wallet stamp, and enclave
// bundles that @turnkey/crypto verifies with the sandbox enclave key as its signer override.

const s = useSandbox();

/** `GET /_sandbox/enclave`: the key a client pins and the platform's organization id. */
async function enclave(api: Api): Promise<{ enclaveQuorumPublic: string; organizationId: string }> {
  const res = await api.get('/_sandbox/enclave');
  expect(res.status).toBe(200);
  return res.body;
}

/** The EMAIL_OTP login as a production client makes it: @turnkey/crypto verifies the target bundle, the stamp goes under Grid-Wallet-Signature. */
async function gridLogin(api: Api, walletId: string): Promise<{ key: KeyPair; session: any }> {
  const { enclaveQuorumPublic } = await enclave(api);
  const list = await api.get(`/auth/credentials?accountId=${encodeURIComponent(walletId)}`);
  const credential = list.body.data.find((c: { type: string }) => c.type === 'EMAIL_OTP');
  const challenge = await api.post(`/auth/credentials/${credential.id}/challenge`, {});
  expect(challenge.status).toBe(200);
  const key = generateP256KeyPair();
  const encryptedOtpBundle = await encryptOtpCodeToBundle('000000', challenge.body.otpEncryptionTargetBundle, key.publicKeyUncompressed, enclaveQuorumPublic);
  const body = { type: 'EMAIL_OTP', encryptedOtpBundle };
  const first = await api.post(`/auth/credentials/${credential.id}/verify`, body);
  expect(first.status, JSON.stringify(first.body)).toBe(202);
  // The verificationToken to sign is what @turnkey/crypto verifies, with the sandbox key as signer.
  const claims = await verifyOtpVerificationToken(first.body.payloadToSign, enclaveQuorumPublic);
  expect(claims).toMatchObject({ verification_type: 'OTP_TYPE_EMAIL', contact: credential.nickname, public_key: expect.any(String) });
  await expect(verifyOtpVerificationToken(first.body.payloadToSign)).rejects.toThrow(/signature is invalid/);
  const retry = await api.post(`/auth/credentials/${credential.id}/verify`, body, {
    headers: { 'Grid-Wallet-Signature': await stampWith(key, first.body.payloadToSign), 'Request-Id': first.body.requestId },
  });
  expect(retry.status, JSON.stringify(retry.body)).toBe(200);
  return { key, session: retry.body };
}

async function walletQuote(api: Api, walletId: string, usdId: string, amount: number) {
  const quote = await api.post('/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: walletId },
    destination: { destinationType: 'ACCOUNT', accountId: usdId },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: amount,
  });
  expect(quote.status, JSON.stringify(quote.body)).toBe(201);
  const payload = quote.body.paymentInstructions.find((p: any) => p.accountOrWalletInfo.accountType === 'EMBEDDED_WALLET').accountOrWalletInfo.payloadToSign as string;
  return { id: quote.body.id as string, payload };
}

async function walletBalance(api: Api, customerId: string, walletId: string): Promise<number> {
  const res = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`);
  return res.body.data.find((a: { id: string }) => a.id === walletId).balance.amount;
}

describe('Grid-Wallet-Signature, the production clients\' header name', () => {
  it('verifies a credential (signed OTP retry) and executes a signed quote with the stamp under Grid-Wallet-Signature', async () => {
    const api = await s.api.newPlatform();
    const { customer, wallet, usd } = await walletCustomer(api);
    expect((await api.post(`/sandbox/internal-accounts/${wallet.id}/fund`, { amount: 50_000_000 })).status).toBe(200);
    const { key, session } = await gridLogin(api, wallet.id);
    expect(session.id).toMatch(/^Session:/);

    const quote = await walletQuote(api, wallet.id, usd.id, 20_000_000);
    const wrong = await api.post(`/quotes/${quote.id}/execute`, {}, { headers: { 'Grid-Wallet-Signature': await stampWith(key, `${quote.payload} `) } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('WALLET_SIGNATURE_INVALID');
    const paid = await api.post(`/quotes/${quote.id}/execute`, {}, { headers: { 'Grid-Wallet-Signature': await stampWith(key, quote.payload) } });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await walletBalance(api, customer.id, wallet.id)).toBe(30_000_000);
  });

  it('takes the same stamp under both names; different values under the two are a 400 naming both, and nothing moves', async () => {
    const api = await s.api.newPlatform();
    const { customer, wallet, usd } = await walletCustomer(api);
    expect((await api.post(`/sandbox/internal-accounts/${wallet.id}/fund`, { amount: 50_000_000 })).status).toBe(200);
    const { key } = await emailOtpLogin(api, wallet.id);
    const quote = await walletQuote(api, wallet.id, usd.id, 10_000_000);
    const stamp = await stampWith(key, quote.payload);
    const other = await stampWith(generateP256KeyPair(), quote.payload);

    const clash = await api.post(`/quotes/${quote.id}/execute`, {}, { headers: { 'Service-Wallet-Signature': stamp, 'Grid-Wallet-Signature': other } });
    expect(clash.status).toBe(400);
    expect(clash.body.code).toBe('INVALID_INPUT');
    expect(clash.body.message).toMatch(/Service-Wallet-Signature.*Grid-Wallet-Signature/);
    expect(clash.body.details.errors.map((e: { field: string }) => e.field)).toEqual(['Service-Wallet-Signature', 'Grid-Wallet-Signature']);
    expect(await walletBalance(api, customer.id, wallet.id)).toBe(50_000_000);

    // The same on a signed-retry operation: the pending request stays usable.
    const target = generateP256KeyPair();
    const first = await api.post(`/internal-accounts/${wallet.id}/export`, { clientPublicKey: target.publicKeyUncompressed });
    expect(first.status).toBe(202);
    const exportStamp = await stampWith(key, first.body.payloadToSign);
    const exportClash = await api.post(`/internal-accounts/${wallet.id}/export`, { clientPublicKey: target.publicKeyUncompressed }, {
      headers: { 'Service-Wallet-Signature': exportStamp, 'Grid-Wallet-Signature': `${exportStamp}x`, 'Request-Id': first.body.requestId },
    });
    expect(exportClash.status).toBe(400);
    expect(exportClash.body.details.errors.map((e: { field: string }) => e.field)).toEqual(['Service-Wallet-Signature', 'Grid-Wallet-Signature']);
    const exported = await api.post(`/internal-accounts/${wallet.id}/export`, { clientPublicKey: target.publicKeyUncompressed }, {
      headers: { 'Service-Wallet-Signature': exportStamp, 'Grid-Wallet-Signature': exportStamp, 'Request-Id': first.body.requestId },
    });
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);

    const paid = await api.post(`/quotes/${quote.id}/execute`, {}, { headers: { 'Service-Wallet-Signature': stamp, 'Grid-Wallet-Signature': stamp } });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await walletBalance(api, customer.id, wallet.id)).toBe(40_000_000);
  });

  it('a missing stamp names both headers', async () => {
    const api = await s.api.newPlatform();
    const { wallet, usd } = await walletCustomer(api);
    expect((await api.post(`/sandbox/internal-accounts/${wallet.id}/fund`, { amount: 10_000_000 })).status).toBe(200);
    const quote = await walletQuote(api, wallet.id, usd.id, 1_000_000);
    const unsigned = await api.post(`/quotes/${quote.id}/execute`, {});
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.code).toBe('WALLET_SIGNATURE_MISSING');
    expect(unsigned.body.message).toMatch(/Service-Wallet-Signature.*Grid-Wallet-Signature/);
  });
});

describe('signed enclave bundles', () => {
  it('GET /_sandbox/enclave: one published key for every platform, each platform its organization id', async () => {
    const one = await enclave(s.api);
    const other = await enclave(await s.api.newPlatform());
    expect(one.enclaveQuorumPublic).toMatch(/^04[0-9a-f]{128}$/);
    expect(other.enclaveQuorumPublic).toBe(one.enclaveQuorumPublic);
    expect(other.organizationId).not.toBe(one.organizationId);
    expect((await s.api.get('/_sandbox/enclave', { auth: false })).status).toBe(401);
    // The key the docs publish for clients to pin is this one.
    expect(readFileSync(new URL('../../docs/embedded-wallet.md', import.meta.url), 'utf8')).toContain(`\n${one.enclaveQuorumPublic}\n`);
  });

  it('decryptExportBundle of @turnkey/crypto, with the sandbox key as signer, returns the 24 words; one changed byte of dataSignature is refused', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const { key } = await gridLogin(api, wallet.id);
    const { enclaveQuorumPublic, organizationId } = await enclave(api);
    const target = generateP256KeyPair();
    const first = await api.post(`/internal-accounts/${wallet.id}/export`, { clientPublicKey: target.publicKeyUncompressed });
    expect(first.status).toBe(202);
    // The organization id a client checks is also the one the payload it signs names.
    expect(JSON.parse(first.body.payloadToSign).organizationId).toBe(organizationId);
    const done = await api.post(`/internal-accounts/${wallet.id}/export`, { clientPublicKey: target.publicKeyUncompressed }, {
      headers: { 'Grid-Wallet-Signature': await stampWith(key, first.body.payloadToSign), 'Request-Id': first.body.requestId },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const exportBundle = done.body.encryptedWalletCredentials as string;
    expect(JSON.parse(exportBundle).enclaveQuorumPublic).toBe(enclaveQuorumPublic);

    const mnemonic = await decryptExportBundle({ exportBundle, embeddedKey: target.privateKey, organizationId, dangerouslyOverrideSignerPublicKey: enclaveQuorumPublic, returnMnemonic: true });
    expect(mnemonic.split(' ')).toHaveLength(24);
    expect(validateMnemonic(mnemonic, english)).toBe(true);
    // The same words as a plain HPKE open of the sealed data.
    const data = JSON.parse(Buffer.from(JSON.parse(exportBundle).data, 'hex').toString('utf8'));
    const opened = hpkeDecrypt({ ciphertextBuf: Buffer.from(data.ciphertext, 'hex'), encappedKeyBuf: Buffer.from(data.encappedPublic, 'hex'), receiverPriv: target.privateKey });
    expect(new TextDecoder().decode(opened)).toBe(mnemonic);

    const parsed = JSON.parse(exportBundle) as { dataSignature: string };
    const bytes = Buffer.from(parsed.dataSignature, 'hex');
    bytes[bytes.length - 5]! ^= 0x01; // a byte inside s
    const tampered = JSON.stringify({ ...JSON.parse(exportBundle), dataSignature: bytes.toString('hex') });
    await expect(
      decryptExportBundle({ exportBundle: tampered, embeddedKey: target.privateKey, organizationId, dangerouslyOverrideSignerPublicKey: enclaveQuorumPublic, returnMnemonic: true }),
    ).rejects.toThrow(/failed to verify enclave signature/);
    // Without the override, the production key is expected, and the sandbox's is not it.
    await expect(decryptExportBundle({ exportBundle, embeddedKey: target.privateKey, organizationId, returnMnemonic: true })).rejects.toThrow(/does not match signer key/);
    // Another platform's organization id is refused.
    const stranger = (await enclave(await s.api.newPlatform())).organizationId;
    await expect(
      decryptExportBundle({ exportBundle, embeddedKey: target.privateKey, organizationId: stranger, dangerouslyOverrideSignerPublicKey: enclaveQuorumPublic, returnMnemonic: true }),
    ).rejects.toThrow(/organization id does not match/);
  });

  it('the OTP encryption target bundle is signed by the same key: encryptOtpCodeToBundle accepts it and refuses a changed signature', async () => {
    const api = await s.api.newPlatform();
    const { wallet } = await walletCustomer(api);
    const { enclaveQuorumPublic, organizationId } = await enclave(api);
    const list = await api.get(`/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
    const challenge = await api.post(`/auth/credentials/${list.body.data[0].id}/challenge`, {});
    const bundle = JSON.parse(challenge.body.otpEncryptionTargetBundle);
    expect(bundle.enclaveQuorumPublic).toBe(enclaveQuorumPublic);
    expect(JSON.parse(Buffer.from(bundle.data, 'hex').toString('utf8')).organizationId).toBe(organizationId);
    const key = generateP256KeyPair();
    await expect(encryptOtpCodeToBundle('000000', challenge.body.otpEncryptionTargetBundle, key.publicKeyUncompressed, enclaveQuorumPublic)).resolves.toMatch(/encappedPublic/);
    const bytes = Buffer.from(bundle.dataSignature, 'hex');
    bytes[bytes.length - 5]! ^= 0x01;
    const tampered = JSON.stringify({ ...bundle, dataSignature: bytes.toString('hex') });
    await expect(encryptOtpCodeToBundle('000000', tampered, key.publicKeyUncompressed, enclaveQuorumPublic)).rejects.toThrow(/signature verification failed/);
  });
});
