import { describe, expect, it } from 'vitest';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { verifyAssertion, verifyRegistration, WebAuthnError } from '../../src/crypto/webauthn.js';
import { attestationCertificate, SoftwareAuthenticator, type Attestation } from '../helpers/webauthn-authenticator.js';

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

  describe('attestation statements', () => {
    const user = { userId: 'u', userName: 'n' };
    const register = (auth: SoftwareAuthenticator, attestation: Attestation) =>
      verifyRegistration({ response: auth.register('YQ', user, { attestation }), expectedChallenge: 'YQ', ...expected });

    it('accepts packed self attestation and rejects a bad one', async () => {
      const auth = new SoftwareAuthenticator(rp);
      const credential = await register(auth, { format: 'packed-self' });
      expect((await verifyAssertion({ response: auth.assert(challenge), expectedChallenge: challenge, credential, ...expected })).newCounter).toBe(1);
      expect(await reasonOf(register(new SoftwareAuthenticator(rp), { format: 'packed-self', badSignature: true }))).toMatch(/self attestation signature/i);
    });

    it('accepts packed attestation with a certificate chain, checks its signature and the chain', async () => {
      const chained = await attestationCertificate({ withRoot: true });
      await expect(register(new SoftwareAuthenticator(rp), { format: 'packed', certificate: chained })).resolves.toMatchObject({ counter: 0 });
      await expect(register(new SoftwareAuthenticator(rp), { format: 'packed', certificate: await attestationCertificate() })).resolves.toMatchObject({ counter: 0 });
      expect(await reasonOf(register(new SoftwareAuthenticator(rp), { format: 'packed', certificate: chained, badSignature: true }))).toMatch(/attestation signature/i);
      const other = await attestationCertificate({ withRoot: true });
      const broken = { ...chained, chain: [chained.chain[0]!, other.chain[1]!] };
      expect(await reasonOf(register(new SoftwareAuthenticator(rp), { format: 'packed', certificate: broken }))).toMatch(/chain does not verify/i);
      const wrongSubject = await attestationCertificate({ subject: 'C=US, O=Sandbox, CN=No OU' });
      expect(await reasonOf(register(new SoftwareAuthenticator(rp), { format: 'packed', certificate: wrongSubject }))).toMatch(/OU=Authenticator Attestation/);
    });

    it('accepts fido-u2f, and refuses formats it does not verify or malformed statements', async () => {
      const certificate = await attestationCertificate();
      await expect(register(new SoftwareAuthenticator(rp), { format: 'fido-u2f', certificate })).resolves.toMatchObject({ counter: 0 });
      expect(await reasonOf(register(new SoftwareAuthenticator(rp), { format: 'other', fmt: 'tpm', attStmt: new Map() }))).toMatch(/does not verify "tpm"/);
      expect(await reasonOf(register(new SoftwareAuthenticator(rp), { format: 'other', fmt: 'none', attStmt: new Map([['sig', new Uint8Array(3)]]) }))).toMatch(/must be empty/);
      expect(await reasonOf(register(new SoftwareAuthenticator(rp), { format: 'other', fmt: 'packed', attStmt: new Map([['alg', -7]]) }))).toMatch(/Malformed packed/);
      expect(await reasonOf(register(new SoftwareAuthenticator(rp), { format: 'other', fmt: 'x-unknown', attStmt: new Map() }))).toMatch(/x-unknown/);
    });
  });

  it('verifies EdDSA (Ed25519) credentials', async () => {
    const auth = new SoftwareAuthenticator({ ...rp, algorithm: 'EdDSA' });
    const credential = await verifyRegistration({ response: auth.register('YQ', { userId: 'u', userName: 'n' }, { attestation: { format: 'packed-self' } }), expectedChallenge: 'YQ', ...expected });
    expect((await verifyAssertion({ response: auth.assert(challenge), expectedChallenge: challenge, credential, ...expected })).newCounter).toBe(1);
    expect(await reasonOf(verifyAssertion({ response: auth.assert(challenge, { badSignature: true }), expectedChallenge: challenge, credential: { ...credential, counter: 1 }, ...expected }))).toMatch(/signature/i);
  });

  it('answers malformed ceremonies with a WebAuthnError, never another exception', async () => {
    const { auth, credential } = await registered();
    const good = auth.assert(challenge);
    const shapes: unknown[] = [
      undefined,
      {},
      { id: auth.id, rawId: auth.id, response: 7 },
      { id: auth.id, rawId: auth.id, response: { ...good.response, clientDataJSON: '!!' } },
      { id: auth.id, rawId: auth.id, response: { ...good.response, authenticatorData: 'AAAA' } },
      { id: auth.id, rawId: auth.id, response: { ...good.response, clientDataJSON: isoBase64URL.fromUTF8String('{"type":1}') } },
      { ...good, rawId: 'other' },
    ];
    for (const response of shapes) {
      expect(await reasonOf(verifyAssertion({ response: response as never, expectedChallenge: challenge, credential, ...expected }))).toBeTypeOf('string');
    }
    expect(await reasonOf(verifyAssertion({ response: good, expectedChallenge: challenge, credential: { ...credential, publicKey: 'AAAA' }, ...expected }))).toMatch(/stored/i);
    const registration = auth.register('YQ', { userId: 'u', userName: 'n' });
    for (const response of [{}, { response: { clientDataJSON: registration.response.clientDataJSON, attestationObject: 'AAAA' } }, { ...registration, id: 'other' }]) {
      expect(await reasonOf(verifyRegistration({ response: response as never, expectedChallenge: 'YQ', ...expected }))).toBeTypeOf('string');
    }
  });
});
