import { describe, expect, it } from 'vitest';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { verifyAssertion, verifyRegistration, WebAuthnError } from '../../src/crypto/webauthn.js';
import { SoftwareAuthenticator } from '../helpers/webauthn-authenticator.js';

const rp = { rpId: 'wallet.example', origin: 'https://wallet.example' };
const expected = { expectedOrigin: rp.origin, expectedRpId: rp.rpId };
const challenge = isoBase64URL.fromUTF8String('6b35a4c41d9aa7a2a0e742f9f9e7a1c2d65a2db33a3fb748f6d4f1ce78d9a729');

async function registered() {
  const auth = new SoftwareAuthenticator(rp);
  const credential = await verifyRegistration({ response: auth.register('cmVnLWNoYWxsZW5nZQ', { userId: 'u1', userName: 'jane' }), expectedChallenge: 'cmVnLWNoYWxsZW5nZQ', ...expected });
  return { auth, credential };
}

const reasonOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebAuthnError);
    return (error as WebAuthnError).reason;
  }
  throw new Error('expected a WebAuthnError');
};

describe('webauthn', () => {
  it('registers and verifies an assertion, counter moving forward', async () => {
    const { auth, credential } = await registered();
    expect(credential.credentialId).toBe(auth.id);
    expect(credential.counter).toBe(0);
    const first = await verifyAssertion({ response: auth.assert(challenge), expectedChallenge: challenge, credential, ...expected });
    expect(first.newCounter).toBe(1);
    const second = await verifyAssertion({ response: auth.assert(challenge), expectedChallenge: challenge, credential: { ...credential, counter: 1 }, ...expected });
    expect(second.newCounter).toBe(2);
  });

  it('rejects registration with a wrong challenge, origin, RP id or no user presence', async () => {
    const auth = new SoftwareAuthenticator(rp);
    const user = { userId: 'u', userName: 'n' };
    expect(await reasonOf(verifyRegistration({ response: auth.register('YQ', user), expectedChallenge: 'Yg', ...expected }))).toMatch(/challenge/i);
    expect(await reasonOf(verifyRegistration({ response: auth.register('YQ', user, { origin: 'https://evil.example' }), expectedChallenge: 'YQ', ...expected }))).toMatch(/origin/i);
    expect(await reasonOf(verifyRegistration({ response: auth.register('YQ', user, { rpId: 'evil.example' }), expectedChallenge: 'YQ', ...expected }))).toMatch(/RP ID/i);
    expect(await reasonOf(verifyRegistration({ response: auth.register('YQ', user, { userPresent: false }), expectedChallenge: 'YQ', ...expected }))).toMatch(/present/i);
  });

  it('rejects assertions with a bad signature, replayed counter, wrong challenge, origin, credential', async () => {
    const { auth, credential } = await registered();
    const check = (response: ReturnType<SoftwareAuthenticator['assert']>, over: Partial<Parameters<typeof verifyAssertion>[0]> = {}) =>
      reasonOf(verifyAssertion({ response, expectedChallenge: challenge, credential: { ...credential, counter: 5 }, ...expected, ...over }));
    expect(await check(auth.assert(challenge, { counter: 9, badSignature: true }))).toMatch(/signature/i);
    expect(await check(auth.assert(challenge, { counter: 5 }))).toMatch(/counter/i);
    expect(await check(auth.assert(challenge, { counter: 9 }), { expectedChallenge: 'b3RoZXI' })).toMatch(/challenge/i);
    expect(await check(auth.assert(challenge, { counter: 9, origin: 'https://x.example' }))).toMatch(/origin/i);
    expect(await check(auth.assert(challenge, { counter: 9, userPresent: false }))).toMatch(/present/i);
    const other = new SoftwareAuthenticator(rp);
    expect(await check(other.assert(challenge))).toMatch(/credential id/i);
  });
});
