import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { formatHpkeBuf, generateP256KeyPair, hpkeEncrypt } from '@turnkey/crypto';
import { expect } from 'vitest';
import { individual, type Api } from './sandbox.js';

/** A P-256 key pair as @turnkey/crypto makes it (hex private, compressed and uncompressed public). */
export interface KeyPair {
  privateKey: string;
  publicKey: string;
  publicKeyUncompressed: string;
}

/** Stamps `payload` with ApiKeyStamper (publicKey is the compressed form), as a real client does. */
export async function stampWith(key: KeyPair, payload: string): Promise<string> {
  const { stampHeaderValue } = await new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }).stamp(payload);
  return stampHeaderValue;
}

/** The encryptedOtpBundle of the walkthrough: hpkeEncrypt + formatHpkeBuf of {otp_code, public_key (uncompressed)} to targetPublic. */
export function encryptOtp(targetBundle: string, code: string, tek: KeyPair): string {
  const data = JSON.parse(Buffer.from((JSON.parse(targetBundle) as { data: string }).data, 'hex').toString('utf8')) as { targetPublic: string };
  const plainTextBuf = new TextEncoder().encode(JSON.stringify({ otp_code: code, public_key: tek.publicKeyUncompressed }));
  return formatHpkeBuf(hpkeEncrypt({ plainTextBuf, targetKeyBuf: Uint8Array.from(Buffer.from(data.targetPublic, 'hex')) }));
}

/** A customer with a USD account and a USDB embedded wallet on a fresh platform. */
export async function walletCustomer(api: Api, extra: Record<string, unknown> = {}) {
  const email = `jane.${Math.random().toString(36).slice(2, 8)}@example.com`;
  const customer = await api.post('/customers', individual(['USD', 'USDB'], { email, phoneNumber: '+14155550123', ...extra }));
  expect(customer.status, JSON.stringify(customer.body)).toBe(201);
  const accounts = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}`);
  const wallet = accounts.body.data.find((a: { type: string }) => a.type === 'EMBEDDED_WALLET');
  const usd = accounts.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD');
  return { customer: customer.body, wallet, usd, email };
}

/** The full EMAIL_OTP login of the walkthrough; returns the session and its key (the TEK). */
export async function emailOtpLogin(api: Api, walletId: string): Promise<{ session: any; key: KeyPair; credential: any }> {
  const list = await api.get(`/auth/credentials?accountId=${encodeURIComponent(walletId)}`);
  expect(list.status).toBe(200);
  const credential = list.body.data.find((c: { type: string }) => c.type === 'EMAIL_OTP');
  const challenge = await api.post(`/auth/credentials/${credential.id}/challenge`, {});
  expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
  const tek = generateP256KeyPair();
  const body = { type: 'EMAIL_OTP', encryptedOtpBundle: encryptOtp(challenge.body.otpEncryptionTargetBundle, '000000', tek) };
  const first = await api.post(`/auth/credentials/${credential.id}/verify`, body);
  expect(first.status, JSON.stringify(first.body)).toBe(202);
  const retry = await api.post(`/auth/credentials/${credential.id}/verify`, body, {
    headers: { 'Service-Wallet-Signature': await stampWith(tek, first.body.payloadToSign), 'Request-Id': first.body.requestId },
  });
  expect(retry.status, JSON.stringify(retry.body)).toBe(200);
  return { session: retry.body, key: tek, credential };
}

/** Both legs of a signed-retry call with `key`. */
export async function signed(api: Api, method: string, path: string, body: unknown, key: KeyPair) {
  const first = await api.request(method, path, body === undefined ? {} : { body });
  expect(first.status, JSON.stringify(first.body)).toBe(202);
  const second = await api.request(method, path, {
    ...(body === undefined ? {} : { body }),
    headers: { 'Service-Wallet-Signature': await stampWith(key, first.body.payloadToSign), 'Request-Id': first.body.requestId },
  });
  return { first, second };
}
