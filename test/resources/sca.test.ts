import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { totpCode } from '../../src/crypto/totp.js';
import { platformService } from '../../src/tenancy/index.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { individual, useSandbox, type Api } from '../helpers/sandbox.js';
import { SoftwareAuthenticator } from '../helpers/webauthn-authenticator.js';

const s = useSandbox();

const ORIGIN = 'https://app.example.com';
const RP_ID = 'app.example.com';
const ip = '203.0.113.42';
const q = (customerId: string) => `customerId=${encodeURIComponent(customerId)}`;
const mexican = { beneficiaryType: 'INDIVIDUAL', fullName: 'Maria Garcia', countryOfResidence: 'MX', address: { line1: 'Av. Reforma 1', postalCode: '06600', country: 'MX' } };

/** A German customer (in SCA scope) with a verified phone, so SMS_OTP is an implicit factor. */
async function german(api: Api, options: { verifyPhone?: boolean } = {}) {
  const res = await api.post('/customers', individual(['EUR', 'USD', 'USDC'], {
    region: 'DE',
    nationality: 'DE',
    address: { line1: 'Hauptstrasse 1', postalCode: '10115', country: 'DE' },
    phoneNumber: `+4915${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`,
  }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const customer = res.body;
  if (options.verifyPhone !== false) {
    expect((await api.post(`/customers/${customer.id}/verify-phone`)).status).toBe(204);
    expect((await api.post(`/customers/${customer.id}/verify-phone/confirm`, { code: '123456' })).status).toBe(200);
  }
  const accounts = (await api.get(`/customers/internal-accounts?${q(customer.id)}`)).body.data;
  const byCode = (code: string) => accounts.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === code);
  return { customer, eur: byCode('EUR'), usd: byCode('USD') };
}

async function login(api: Api, customerId: string) {
  const start = await api.post(`/sca/login/start?${q(customerId)}`, { factor: 'SMS_OTP' });
  expect(start.status, JSON.stringify(start.body)).toBe(200);
  const done = await api.post(`/sca/login/complete?${q(customerId)}`, { factor: 'SMS_OTP', challengeId: start.body.challengeId, code: '123456', endUserIpAddress: ip });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  return done.body;
}

async function usdcAddress(api: Api, customerId: string): Promise<string> {
  const res = await api.post('/customers/external-accounts', { customerId, currency: 'USDC', accountInfo: { accountType: 'BASE_WALLET', address: `0x${randomBytes(20).toString('hex')}` } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function clabe(api: Api, customerId: string): Promise<string> {
  const res = await api.post('/customers/external-accounts', {
    customerId,
    currency: 'MXN',
    accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: `0021800001${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}123`, beneficiary: mexican },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const now = () => s.sandbox.context.clock.now();
const platformIdOf = (api: Api) => platformService(s.sandbox.context).byClientId(api.clientId)!.id;

describe('SCA scope', () => {
  it('a US customer gets 409 on every SCA operation; a missing customerId is 400 naming it', async () => {
    const api = await s.api.newPlatform();
    const us = (await api.post('/customers', individual(['USD', 'USDC'], { region: 'US', phoneNumber: '+14155550123' }))).body;
    const usdc = await usdcAddress(api, us.id);
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/sca/factors?${q(us.id)}`],
      ['POST', `/sca/factors?${q(us.id)}`, { type: 'TOTP' }],
      ['POST', `/sca/factors/confirm?${q(us.id)}`, { type: 'TOTP', secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', code: '123456' }],
      ['DELETE', `/sca/factors/abc?${q(us.id)}`],
      ['POST', `/sca/login/start?${q(us.id)}`, { factor: 'SMS_OTP' }],
      ['POST', `/sca/login/complete?${q(us.id)}`, { factor: 'TOTP', code: '123456', endUserIpAddress: ip }],
      ['POST', `/sca/record-event?${q(us.id)}`, { eventType: 'FAILED_LOGIN_ATTEMPT' }],
      ['POST', `/sca/factors/reset?${q(us.id)}`, { factor: 'SMS_OTP' }],
      ['GET', `/sca/factors/reset/ScaReset:x?${q(us.id)}`],
      ['POST', `/sca/factors/reset/ScaReset:x/complete?${q(us.id)}`],
      ['POST', `/customers/external-accounts/${usdc}/trust`],
      ['POST', `/customers/external-accounts/${usdc}/trust/confirm`, { code: '123456' }],
      ['POST', `/customers/external-accounts/${usdc}/untrust`],
      ['POST', `/customers/external-accounts/${usdc}/untrust/confirm`, { code: '123456' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await api.request(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
    }
    // Quotes of a US customer never wait for SCA: authorize and resend have nothing to answer (409).
    const dest = await clabe(api, us.id);
    const quote = (await api.post('/quotes', { source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: us.id }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100_00 })).body;
    expect(quote.status).toBe('PROCESSING');
    expect(quote.scaChallenge).toBeUndefined();
    expect((await api.post(`/quotes/${quote.id}/authorize`, { code: '123456' })).status).toBe(409);
    expect((await api.post(`/quotes/${quote.id}/authorize/resend`)).status).toBe(409);

    const missing = await api.post('/sca/login/start', { factor: 'SMS_OTP' });
    expect(missing.status).toBe(400);
    expect(missing.body.details.errors[0].field).toBe('customerId');
    expect((await api.get(`/sca/factors?${q('Customer:nope')}`)).status).toBe(404);
  });
});

describe('SCA scope by region', () => {
  it('EEA Norway is in scope with the phone on file (no contact verification there); Switzerland and Britain are not', async () => {
    const api = await s.api.newPlatform();
    const norway = (await api.post('/customers', individual(['EUR'], { region: 'NO', phoneNumber: '+4741234567' }))).body;
    expect((await api.get(`/sca/factors?${q(norway.id)}`)).body.factors.map((f: { factor: string }) => f.factor)).toEqual(['SMS_OTP']);
    for (const region of ['CH', 'GB']) {
      const outside = (await api.post('/customers', individual(['EUR'], { region }))).body;
      const res = await api.get(`/sca/factors?${q(outside.id)}`);
      expect(res.status).toBe(409);
      expect(res.body.details).toMatchObject({ reason: 'SCA_NOT_REQUIRED', region });
    }
  });
});

describe('factors and login', () => {
  it('a German customer lists SMS, enrolls TOTP with a code computed from the returned secret, and logs in with TOTP', async () => {
    const api = await s.api.newPlatform();
    const { customer } = await german(api, { verifyPhone: false });
    expect((await api.get(`/sca/factors?${q(customer.id)}`)).body.factors).toEqual([]);
    expect((await api.post(`/sca/login/start?${q(customer.id)}`, { factor: 'SMS_OTP' })).status).toBe(400);
    await api.post(`/customers/${customer.id}/verify-phone`);
    await api.post(`/customers/${customer.id}/verify-phone/confirm`, { code: '123456' });
    expect((await api.get(`/sca/factors?${q(customer.id)}`)).body.factors.map((f: { factor: string }) => f.factor)).toEqual(['SMS_OTP']);

    const start = await api.post(`/sca/factors?${q(customer.id)}`, { type: 'TOTP' });
    expect(start.status).toBe(200);
    expect(start.body.secret).toMatch(/^[0-9a-f]{40}$/);
    expect(start.body.totpUri).toMatch(/^otpauth:\/\/totp\//);
    expect(start.body.totpUri).toContain(`secret=${start.body.secretBase32Encoded}`);
    const wrong = await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'TOTP', secret: start.body.secret, code: '000001' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details.reason).toBe('INVALID_CODE');
    const code = totpCode(start.body.secret, now());
    const confirmed = await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'TOTP', secret: start.body.secret, code });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.recoveryCodes).toHaveLength(8);
    const replay = await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'TOTP', secret: start.body.secret, code });
    expect(replay.status).toBe(400);
    expect(replay.body.details.reason).toBe('ENROLLMENT_ALREADY_CONFIRMED');
    expect((await api.get(`/sca/factors?${q(customer.id)}`)).body.factors.map((f: { factor: string }) => f.factor)).toEqual(['SMS_OTP', 'TOTP']);
    expect((await api.post(`/sca/factors?${q(customer.id)}`, { type: 'TOTP' })).status).toBe(409);

    const totpStart = await api.post(`/sca/login/start?${q(customer.id)}`, { factor: 'TOTP' });
    expect(totpStart.body).toEqual({ factor: 'TOTP' });
    const session = await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'TOTP', code: totpCode(start.body.secret, now()), endUserIpAddress: ip });
    expect(session.status).toBe(200);
    expect(session.body.status).toBe('SUCCESS');
    expect(Date.parse(session.body.sessionExpiresAt) - now()).toBeGreaterThan(14 * 60_000);
  });

  it('SMS login needs its challengeId; another customer\'s challenge and an expired one are refused', async () => {
    const api = await s.api.newPlatform();
    const { customer } = await german(api);
    const { customer: other } = await german(api);
    const noId = await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'SMS_OTP', code: '123456', endUserIpAddress: ip });
    expect(noId.status).toBe(400);
    expect(noId.body.details.errors[0].field).toBe('challengeId');
    const theirs = (await api.post(`/sca/login/start?${q(other.id)}`, { factor: 'SMS_OTP' })).body;
    await api.post(`/sca/login/start?${q(customer.id)}`, { factor: 'SMS_OTP' });
    const foreign = await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'SMS_OTP', challengeId: theirs.challengeId, code: '123456', endUserIpAddress: ip });
    expect(foreign.status).toBe(400);
    expect(foreign.body.details.reason).toBe('CHALLENGE_MISMATCH');
    const mine = (await api.post(`/sca/login/start?${q(customer.id)}`, { factor: 'SMS_OTP' })).body;
    await api.advance(5 * 60 + 1);
    const late = await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'SMS_OTP', challengeId: mine.challengeId, code: '123456', endUserIpAddress: ip });
    expect(late.status).toBe(400);
    expect(late.body.details.reason).toBe('CHALLENGE_EXPIRED');
  });

  it('wrong codes lock the login with 423 after 5 failures; advancing the clock 15 minutes releases it', async () => {
    const api = await s.api.newPlatform();
    const { customer } = await german(api);
    const start = (await api.post(`/sca/login/start?${q(customer.id)}`, { factor: 'SMS_OTP' })).body;
    const attempt = (code: string) =>
      api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'SMS_OTP', challengeId: start.challengeId, code, endUserIpAddress: ip });
    for (let i = 1; i <= 5; i += 1) {
      const res = await attempt('999999');
      expect(res.status).toBe(400);
      expect(res.body.details.failedAttempts).toBe(i);
    }
    const locked = await attempt('123456');
    expect(locked.status).toBe(423);
    expect(locked.body).toMatchObject({ code: 'ACCOUNT_LOCKED', details: { suspended: false, failedAttempts: 5 } });
    expect(Date.parse(locked.body.details.lockedUntil) - now()).toBeGreaterThan(14 * 60_000);
    await api.advance(15 * 60 + 1);
    const again = (await api.post(`/sca/login/start?${q(customer.id)}`, { factor: 'SMS_OTP' })).body;
    const ok = await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'SMS_OTP', challengeId: again.challengeId, code: '123456', endUserIpAddress: ip });
    expect(ok.status).toBe(200);
  });

  it('record-event escalates the lockout ladder to suspension; RESET_PASSWORD_COMPLETED clears it and revokes the session', async () => {
    const api = await s.api.newPlatform();
    const { customer } = await german(api);
    await login(api, customer.id);
    const record = (eventType: string) => api.post(`/sca/record-event?${q(customer.id)}`, { eventType });
    for (let i = 1; i <= 4; i += 1) expect((await record('FAILED_LOGIN_ATTEMPT')).body).toMatchObject({ failedAttempts: i, suspended: false, lockedUntil: null });
    const fifth = await record('FAILED_LOGIN_ATTEMPT');
    expect(Date.parse(fifth.body.lockedUntil) - now()).toBeGreaterThan(14 * 60_000);
    expect((await record('FAILED_LOGIN_ATTEMPT')).status).toBe(423);
    const minutes = [30, 60, 24 * 60];
    await api.advance(15 * 60 + 1);
    for (const m of minutes) {
      const res = await record('FAILED_LOGIN_ATTEMPT');
      expect(Date.parse(res.body.lockedUntil) - now()).toBeGreaterThan((m - 1) * 60_000);
      await api.advance(m * 60 + 1);
    }
    const ninth = await record('FAILED_LOGIN_ATTEMPT');
    expect(ninth.body).toMatchObject({ failedAttempts: 9, suspended: true, lockedUntil: null });
    await api.advance(30 * 24 * 3600);
    expect((await record('FAILED_LOGIN_ATTEMPT')).status).toBe(423);
    const cleared = await record('RESET_PASSWORD_COMPLETED');
    expect(cleared.body).toEqual({ eventType: 'RESET_PASSWORD_COMPLETED', suspended: false, lockedUntil: null, failedAttempts: 0 });
    const usdc = await usdcAddress(api, customer.id);
    expect((await api.post(`/customers/external-accounts/${usdc}/trust`)).body.code).toBe('SCA_SESSION_REQUIRED');
    const view = await api.get(`/_sandbox/sca/state?${q(customer.id)}`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ customerId: customer.id, region: 'DE', sessionExpiresAt: null, locked: false, failedAttempts: 0, stepUpPending: true });
    expect(view.body.events).toHaveLength(10); // the two refused with 423 are not recorded
    expect(view.body.events[0].eventType).toBe('RESET_PASSWORD_COMPLETED');
    expect((await api.get(`/_sandbox/sca/state?${q(customer.id)}`, { auth: false })).status).toBe(401);
  });

  it('a 2FA reset passes liveness after the sandbox delay (or at once on the hosted page) and clears the factor; SMS enrolls the new mobile', async () => {
    const api = await s.api.newPlatform();
    const { customer } = await german(api);
    const start = await api.post(`/sca/factors?${q(customer.id)}`, { type: 'TOTP' });
    await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'TOTP', secret: start.body.secret, code: '123456' });

    const reset = await api.post(`/sca/factors/reset?${q(customer.id)}`, { factor: 'TOTP' });
    expect(reset.status).toBe(201);
    expect(reset.body.verificationLink).toContain('/hosted/sca-reset/');
    const status = () => api.get(`/sca/factors/reset/${reset.body.resetId}?${q(customer.id)}`);
    expect((await status()).body).toMatchObject({ status: 'INITIATED', factor: 'TOTP', enrollmentStatus: 'PENDING', completedAt: null });
    const early = await api.post(`/sca/factors/reset/${reset.body.resetId}/complete?${q(customer.id)}`);
    expect(early.status).toBe(400);
    expect(early.body.details.reason).toBe('RESET_NOT_READY');
    await api.advance(11);
    expect((await status()).body.status).toBe('PENDING_REVIEW');
    await api.advance(20);
    expect((await status()).body.status).toBe('LIVENESS_PASSED');
    expect((await api.post(`/sca/factors/reset/${reset.body.resetId}/complete?${q(customer.id)}`)).status).toBe(204);
    expect((await status()).body).toMatchObject({ status: 'COMPLETED', enrollmentStatus: 'PENDING' });
    expect((await api.get(`/sca/factors?${q(customer.id)}`)).body.factors.map((f: { factor: string }) => f.factor)).toEqual(['SMS_OTP']);
    const again = await api.post(`/sca/factors?${q(customer.id)}`, { type: 'TOTP' });
    await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'TOTP', secret: again.body.secret, code: '123456' });
    expect((await status()).body.enrollmentStatus).toBe('COMPLETED');

    const sms = (await api.post(`/sca/factors/reset?${q(customer.id)}`, { factor: 'SMS_OTP' })).body;
    const page = await fetch(sms.verificationLink);
    expect(page.status).toBe(200);
    const passed = await fetch(sms.verificationLink, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ outcome: 'pass' }) });
    expect(await passed.json()).toEqual({ status: 'LIVENESS_PASSED' });
    const noMobile = await api.post(`/sca/factors/reset/${sms.resetId}/complete?${q(customer.id)}`);
    expect(noMobile.body.details.errors[0].field).toBe('mobile');
    expect((await api.post(`/sca/factors/reset/${sms.resetId}/complete?${q(customer.id)}`, { mobile: { countryCode: '+49', number: '1701234567' } })).status).toBe(204);
    const updated = (await api.get(`/customers/${customer.id}`)).body;
    expect(updated).toMatchObject({ phoneNumber: '+491701234567', contactVerification: { phone: 'VERIFIED' } });
    expect((await api.get(`/sca/factors/reset/${sms.resetId}?${q(customer.id)}`)).body).toMatchObject({ status: 'COMPLETED', enrollmentStatus: null });

    for (let i = 0; i < 3; i += 1) expect((await api.post(`/sca/factors/reset?${q(customer.id)}`, { factor: 'SMS_OTP' })).status).toBe(201);
    const limited = await api.post(`/sca/factors/reset?${q(customer.id)}`, { factor: 'SMS_OTP' });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
  });
});

describe('beneficiary trust', () => {
  it('needs an SCA session; trust, delete refused, untrust, delete; only USDC addresses', async () => {
    const api = await s.api.newPlatform();
    const { customer } = await german(api);
    const usdc = await usdcAddress(api, customer.id);
    const noSession = await api.post(`/customers/external-accounts/${usdc}/trust`);
    expect(noSession.status).toBe(409);
    expect(noSession.body.code).toBe('SCA_SESSION_REQUIRED');
    await login(api, customer.id);

    const trust = await api.post(`/customers/external-accounts/${usdc}/trust`);
    expect(trust.status).toBe(200);
    expect(trust.body.scaChallenge).toMatchObject({ factor: 'SMS_OTP', availableFactors: ['SMS_OTP'] });
    const wrong = await api.post(`/customers/external-accounts/${usdc}/trust/confirm`, { challengeId: trust.body.scaChallenge.id, code: '111111' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details.reason).toBe('INVALID_CODE');
    const mismatch = await api.post(`/customers/external-accounts/${usdc}/trust/confirm`, { challengeId: 'ScaChallenge:other', code: '123456' });
    expect(mismatch.body.details.reason).toBe('CHALLENGE_MISMATCH');
    const ok = await api.post(`/customers/external-accounts/${usdc}/trust/confirm`, { challengeId: trust.body.scaChallenge.id, code: '123456' });
    expect(ok.body).toEqual({ trusted: true });
    const replay = await api.post(`/customers/external-accounts/${usdc}/trust/confirm`, { challengeId: trust.body.scaChallenge.id, code: '123456' });
    expect(replay.status).toBe(400);
    expect(replay.body.details.reason).toBe('NO_PENDING_CHALLENGE');

    expect((await api.get(`/_sandbox/sca/state?${q(customer.id)}`)).body.trustedBeneficiaries).toEqual([usdc]);
    const refused = await api.delete(`/customers/external-accounts/${usdc}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('BENEFICIARY_TRUSTED');
    expect((await api.get(`/customers/external-accounts/${usdc}`)).status).toBe(200);

    const untrust = await api.post(`/customers/external-accounts/${usdc}/untrust`);
    expect((await api.post(`/customers/external-accounts/${usdc}/untrust/confirm`, { challengeId: untrust.body.scaChallenge.id, code: '123456' })).body).toEqual({ trusted: false });
    expect((await api.delete(`/customers/external-accounts/${usdc}`)).status).toBe(204);
    expect((await api.get(`/_sandbox/sca/state?${q(customer.id)}`)).body.trustedBeneficiaries).toEqual([]);

    const mxn = await clabe(api, customer.id);
    const notUsdc = await api.post(`/customers/external-accounts/${mxn}/trust`);
    expect(notUsdc.status).toBe(409);
    expect(notUsdc.body.details.reason).toBe('NOT_A_USDC_ADDRESS');
    expect((await api.post('/customers/external-accounts/ExternalAccount:nope/trust')).status).toBe(404);

    await api.advance(15 * 60 + 1);
    expect((await api.post(`/customers/external-accounts/${await usdcAddress(api, customer.id)}/trust`)).body.code).toBe('SCA_SESSION_REQUIRED');
  });
});

describe('quotes under SCA', () => {
  it('a cross-currency real-time quote is authorised in two steps, then funded with POST /sandbox/send', async () => {
    const api = await s.api.newPlatform();
    const platformId = platformIdOf(api);
    const { customer } = await german(api);
    const dest = await clabe(api, customer.id);
    const created = await api.post('/quotes', { source: { sourceType: 'REALTIME_FUNDING', currency: 'EUR', customerId: customer.id }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100_00 });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const quote = created.body;
    expect(quote.status).toBe('PENDING_AUTHORIZATION');
    expect(quote.paymentInstructions).toBeUndefined();
    expect(quote.scaChallenge).toMatchObject({ factor: 'SMS_OTP', purpose: 'CURRENCY_CONVERSION', availableFactors: ['SMS_OTP'] });
    expect((await api.get(`/transactions/${quote.transactionId}`)).body.status).toBe('PENDING_AUTHORIZATION');
    const refused = await api.post('/sandbox/send', { quoteId: quote.id, currencyCode: 'EUR' });
    expect(refused.status).toBe(400);
    expect(refused.body.details.reason).toBe('SCA_AUTHORIZATION_REQUIRED');

    const noSession = await api.post(`/quotes/${quote.id}/authorize`, { code: '123456' });
    expect(noSession.body.code).toBe('SCA_SESSION_REQUIRED');
    await login(api, customer.id);
    const wrong = await api.post(`/quotes/${quote.id}/authorize`, { code: '654321' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details.reason).toBe('INVALID_CODE');
    const first = await api.post(`/quotes/${quote.id}/authorize`, { code: '123456', endUserIpAddress: ip });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.status).toBe('PENDING_AUTHORIZATION');
    expect(first.body.scaChallenge.purpose).toBe('PAYOUT');
    expect(first.body.scaChallenge.id).not.toBe(quote.scaChallenge.id);
    expect(first.body.paymentInstructions).toBeUndefined();
    const second = await api.post(`/quotes/${quote.id}/authorize`, { code: '123456' });
    expect(second.body.status).toBe('PROCESSING');
    expect(second.body.scaChallenge).toBeUndefined();
    expect(second.body.paymentInstructions.length).toBeGreaterThan(0);
    expect((await api.post(`/quotes/${quote.id}/authorize`, { code: '123456' })).status).toBe(409);

    const paid = await api.post('/sandbox/send', { quoteId: quote.id, currencyCode: 'EUR' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ id: quote.transactionId, status: 'PROCESSING' });
    await api.advance(5);
    expect((await api.get(`/transactions/${quote.transactionId}`)).body.status).toBe('COMPLETED');

    const events = s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => e.resourceId === quote.transactionId);
    expect(events.map((e) => e.type)).toEqual(['OUTGOING_PAYMENT.PENDING_AUTHORIZATION', 'OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    for (const e of events) assertFitsWebhook('outgoing-payment', { id: e.id, type: e.type, timestamp: e.createdAt, data: e.data });
  });

  it('a pre-funded send waits for one authorization; re-executing is 409; a trusted beneficiary skips the challenge', async () => {
    const api = await s.api.newPlatform();
    const { customer, usd } = await german(api);
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 1_000_00 });
    const usdc = await usdcAddress(api, customer.id);
    const quoteTo = async () => (await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: usd.id }, destination: { destinationType: 'ACCOUNT', accountId: usdc }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100_00 })).body;
    const quote = await quoteTo();
    expect(quote.status).toBe('PROCESSING');
    const noSession = await api.post(`/quotes/${quote.id}/execute`);
    expect(noSession.status).toBe(409);
    expect(noSession.body.code).toBe('SCA_SESSION_REQUIRED');
    await login(api, customer.id);
    expect((await api.post(`/quotes/${quote.id}/execute`, { scaFactor: 'TOTP' })).status).toBe(400);
    const pending = await api.post(`/quotes/${quote.id}/execute`);
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ status: 'PENDING_AUTHORIZATION', scaChallenge: { factor: 'SMS_OTP' } });
    expect(pending.body.scaChallenge.purpose).toBeUndefined();
    expect((await api.post(`/quotes/${quote.id}/execute`)).status).toBe(409);
    expect((await api.post(`/quotes/${quote.id}/authorize/resend`)).status).toBe(429);
    await api.advance(31);
    expect((await api.post(`/quotes/${quote.id}/authorize/resend`)).status).toBe(204);
    const done = await api.post(`/quotes/${quote.id}/authorize`, { code: '123456' });
    expect(done.body.status).toBe('PROCESSING');
    expect((await api.get(`/transactions/${quote.transactionId}`)).body.status).toBe('PROCESSING');

    const trust = await api.post(`/customers/external-accounts/${usdc}/trust`);
    await api.post(`/customers/external-accounts/${usdc}/trust/confirm`, { challengeId: trust.body.scaChallenge.id, code: '123456' });
    const trusted = await quoteTo();
    const executed = await api.post(`/quotes/${trusted.id}/execute`);
    expect(executed.body.status).toBe('PROCESSING');
    expect(executed.body.scaChallenge).toBeUndefined();

    // immediatelyExecute: POST /quotes has no 409, so the challenge comes back at once (202) and the session is checked at authorize.
    await api.advance(15 * 60 + 1);
    const other = await usdcAddress(api, customer.id);
    const immediate = await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: usd.id }, destination: { destinationType: 'ACCOUNT', accountId: other }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_00, immediatelyExecute: true });
    expect(immediate.status).toBe(202);
    expect(immediate.body).toMatchObject({ status: 'PENDING_AUTHORIZATION', scaChallenge: { factor: 'SMS_OTP' } });
    expect((await api.post(`/quotes/${immediate.body.id}/authorize`, { code: '123456' })).body.code).toBe('SCA_SESSION_REQUIRED');
  });

  it('wrong codes at authorize count toward the lockout: 423 ACCOUNT_LOCKED until it expires; a TOTP code answers a trust challenge', async () => {
    const api = await s.api.newPlatform();
    const { customer, usd } = await german(api);
    const totp = (await api.post(`/sca/factors?${q(customer.id)}`, { type: 'TOTP' })).body;
    await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'TOTP', secret: totp.secret, code: '123456' });
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 1_000_00 });
    const dest = await usdcAddress(api, customer.id);
    await login(api, customer.id);
    const quote = (await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: usd.id }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 50_00 })).body;
    await api.post(`/quotes/${quote.id}/execute`);
    for (let i = 0; i < 3; i += 1) expect((await api.post(`/quotes/${quote.id}/authorize`, { code: '000000' })).status).toBe(400);
    const backoff = await api.post(`/quotes/${quote.id}/authorize`, { code: '000000' });
    expect(backoff.status).toBe(429);
    expect(backoff.body.code).toBe('RATE_LIMITED');
    expect(Number(backoff.headers.get('Retry-After'))).toBe(30);
    for (let i = 0; i < 2; i += 1) {
      await api.advance(31);
      expect((await api.post(`/quotes/${quote.id}/authorize`, { code: '000000' })).status).toBe(400);
    }
    const locked = await api.post(`/quotes/${quote.id}/authorize`, { code: '123456' });
    expect(locked.status).toBe(423);
    expect(locked.body.code).toBe('ACCOUNT_LOCKED');

    await api.advance(15 * 60 + 1);
    await login(api, customer.id);
    const trust = (await api.post(`/customers/external-accounts/${dest}/trust`)).body;
    expect(trust.scaChallenge.availableFactors).toEqual(['SMS_OTP', 'TOTP']);
    const confirmed = await api.post(`/customers/external-accounts/${dest}/trust/confirm`, { challengeId: trust.scaChallenge.id, code: totpCode(totp.secret, now()) });
    expect(confirmed.body).toEqual({ trusted: true });
  });

  it('a recorded FAILED_LOGIN_ATTEMPT makes the next quote ask for one more step; an expired challenge is refused', async () => {
    const api = await s.api.newPlatform();
    const { customer, usd } = await german(api);
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 1_000_00 });
    const dest = await usdcAddress(api, customer.id);
    await api.post(`/sca/record-event?${q(customer.id)}`, { eventType: 'FAILED_LOGIN_ATTEMPT' });
    await login(api, customer.id);
    const quote = (await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: usd.id }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 50_00 })).body;
    const pending = (await api.post(`/quotes/${quote.id}/execute`)).body;
    expect(pending.scaChallenge.purpose).toBe('TRANSFER');
    const step = await api.post(`/quotes/${quote.id}/authorize`, { code: '123456' });
    expect(step.body).toMatchObject({ status: 'PENDING_AUTHORIZATION', scaChallenge: { purpose: 'RISK_STEP_UP' } });
    await api.advance(5 * 60 + 1);
    const late = await api.post(`/quotes/${quote.id}/authorize`, { code: '123456' });
    expect(late.status).toBe(400);
    expect(late.body.details.reason).toBe('CHALLENGE_EXPIRED');
    expect((await api.post(`/quotes/${quote.id}/authorize/resend`)).status).toBe(409);
    expect((await api.get(`/quotes/${quote.id}`)).body.status).toBe('EXPIRED');
    expect((await api.get(`/transactions/${quote.transactionId}`)).body.status).toBe('EXPIRED');
  });
});

describe('passkeys', () => {
  it('enrolls a passkey with a software authenticator, refuses a second, logs in and authorizes a quote with it', async () => {
    const api = await s.api.newPlatform();
    const { customer, usd } = await german(api);
    const start = await api.post(`/sca/factors?${q(customer.id)}`, { type: 'PASSKEY' });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ type: 'PASSKEY', relyingPartyId: RP_ID });
    expect(start.body.allowedOrigins).toContain(ORIGIN);
    const device = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
    const credential = device.register(start.body.options.challenge, { userId: start.body.options.user.id, userName: start.body.options.user.name });
    const badOrigin = await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'PASSKEY', origin: 'https://evil.example', credential });
    expect(badOrigin.status).toBe(400);
    expect(badOrigin.body.details.reason).toBe('ORIGIN_NOT_ALLOWED');
    const forged = device.register(start.body.options.challenge, { userId: 'x', userName: 'y' }, { origin: 'http://localhost:3000' });
    const mismatched = await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'PASSKEY', origin: ORIGIN, credential: forged });
    expect(mismatched.status).toBe(400);
    expect(mismatched.body.details.reason).toBe('PASSKEY_ATTESTATION_INVALID');
    const confirmed = await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'PASSKEY', origin: ORIGIN, credential });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.factor).toMatchObject({ factor: 'PASSKEY', credentialId: device.id });
    const second = await api.post(`/sca/factors?${q(customer.id)}`, { type: 'PASSKEY' });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('PASSKEY_ALREADY_ENROLLED');

    const login = (await api.post(`/sca/login/start?${q(customer.id)}`, { factor: 'PASSKEY' })).body;
    expect(login.passkeyOptions.allowCredentials[0].id).toBe(device.id);
    const wrongChallenge = device.assert(start.body.options.challenge);
    const refused = await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'PASSKEY', passkeyAssertion: wrongChallenge, origin: ORIGIN, endUserIpAddress: ip });
    expect(refused.status).toBe(400);
    expect(refused.body.details.reason).toBe('PASSKEY_ASSERTION_INVALID');
    const wrongOrigin = device.assert(login.passkeyOptions.challenge, { origin: 'http://localhost:3000' });
    expect((await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'PASSKEY', passkeyAssertion: wrongOrigin, origin: ORIGIN, endUserIpAddress: ip })).status).toBe(400);
    const ok = await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'PASSKEY', passkeyAssertion: device.assert(login.passkeyOptions.challenge), origin: ORIGIN, endUserIpAddress: ip });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);

    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 1_000_00 });
    const dest = await usdcAddress(api, customer.id);
    const quote = (await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: usd.id }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_00 })).body;
    const pending = (await api.post(`/quotes/${quote.id}/execute`, { scaFactor: 'PASSKEY' })).body;
    expect(pending.scaChallenge).toMatchObject({ factor: 'PASSKEY', availableFactors: ['SMS_OTP', 'PASSKEY'] });
    expect((await api.post(`/quotes/${quote.id}/authorize/resend`)).status).toBe(409);
    const noOrigin = await api.post(`/quotes/${quote.id}/authorize`, { passkeyAssertion: device.assert(pending.scaChallenge.passkeyAssertionOptions.challenge) });
    expect(noOrigin.status).toBe(400);
    const authorized = await api.post(`/quotes/${quote.id}/authorize`, { passkeyAssertion: device.assert(pending.scaChallenge.passkeyAssertionOptions.challenge), origin: ORIGIN });
    expect(authorized.status, JSON.stringify(authorized.body)).toBe(200);
    expect(authorized.body.status).toBe('PROCESSING');

    expect((await api.delete(`/sca/factors/${encodeURIComponent(device.id)}?${q(customer.id)}`)).status).toBe(204);
    expect((await api.delete(`/sca/factors/${encodeURIComponent(device.id)}?${q(customer.id)}`)).status).toBe(404);
    expect((await api.get(`/sca/factors?${q(customer.id)}`)).body.factors.map((f: { factor: string }) => f.factor)).toEqual(['SMS_OTP']);
  });
});

describe('bad input', () => {
  it('malformed proofs, credentials and assertions are 4xx with a reason, never a 500', async () => {
    const api = await s.api.newPlatform();
    const { customer, usd } = await german(api);
    await api.post(`/sca/factors?${q(customer.id)}`, { type: 'PASSKEY' });
    const odd = [{}, { response: 5 }, { id: 'x', response: { clientDataJSON: 'not-base64!', authenticatorData: '', signature: '' } }, { response: { clientDataJSON: Buffer.from('{"challenge":1}').toString('base64url') } }];
    for (const credential of odd) {
      const res = await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'PASSKEY', origin: ORIGIN, credential });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.details.reason).toBeDefined();
    }
    for (const secret of ['zz', '0'.repeat(41), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ']) {
      expect((await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'TOTP', secret, code: '123456' })).status).toBe(400);
    }
    expect((await api.post(`/sca/factors?${q(customer.id)}`, { type: 'SMS_OTP' })).status).toBe(400);
    expect((await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'TOTP', code: '123456', endUserIpAddress: ip })).body.details.reason).toBe('NO_PENDING_CHALLENGE');
    const device = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
    const start = (await api.post(`/sca/factors?${q(customer.id)}`, { type: 'PASSKEY' })).body;
    await api.post(`/sca/factors/confirm?${q(customer.id)}`, { type: 'PASSKEY', origin: ORIGIN, credential: device.register(start.options.challenge, { userId: 'u', userName: 'n' }) });
    const login = (await api.post(`/sca/login/start?${q(customer.id)}`, { factor: 'PASSKEY' })).body;
    for (const passkeyAssertion of [{}, { id: device.id, response: 7 }, { ...device.assert(login.passkeyOptions.challenge), id: 'other' }, device.assert(login.passkeyOptions.challenge, { badSignature: true })]) {
      const res = await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'PASSKEY', passkeyAssertion, origin: ORIGIN, endUserIpAddress: ip });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
    }
    const missingOrigin = await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'PASSKEY', passkeyAssertion: device.assert(login.passkeyOptions.challenge), endUserIpAddress: ip });
    expect(missingOrigin.body.details.reason).toBe('ORIGIN_REQUIRED');
    const legacy = await api.post(`/sca/login/complete?${q(customer.id)}`, { factor: 'PASSKEY', passkeyAssertion: { id: device.id, response: { signature: 'sandbox-valid-passkey-signature' } }, origin: ORIGIN, endUserIpAddress: ip });
    expect(legacy.status).toBe(200);
    const noProof = await api.post(`/quotes/Quote:nope/authorize`, {});
    expect(noProof.status).toBe(404);
    const quote = (await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: usd.id }, destination: { destinationType: 'ACCOUNT', accountId: await usdcAddress(api, customer.id) }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_00 })).body;
    const broke = await api.post(`/quotes/${quote.id}/execute`);
    expect(broke.status).toBe(400);
    expect(broke.body.code).toBe('INVALID_AMOUNT');
    expect((await api.get(`/quotes/${quote.id}`)).body.status).toBe('PROCESSING');
  });
});
