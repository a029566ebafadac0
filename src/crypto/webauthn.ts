import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

/**
 * The library (with the ASN.1 and X.509 code its attestation formats need, about half a
 * megabyte) loads on the first passkey ceremony, not at every start.
 */
const library = () => Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]);

/**
 * WebAuthn verification for passkey credentials: a thin wrapper over @simplewebauthn/server, which
 * does the CBOR/COSE parsing, the challenge, origin and RP-id binding, the user-presence flag, the
 * signature and the counter check (API.md "Sandbox behaviour": full WebAuthn checks). Pure: no DB,
 * no clock.
 */

/** Why a WebAuthn ceremony was rejected; `reason` names the failed check. */
export class WebAuthnError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'WebAuthnError';
  }
}

/** A registered passkey as the relying party stores it. */
export interface StoredPasskey {
  /** Base64url credential id (`PublicKeyCredential.rawId`). */
  credentialId: string;
  /** COSE public key bytes, base64url. */
  publicKey: string;
  /** Signature counter last seen. */
  counter: number;
}

/** Inputs of a registration check. `expectedChallenge` is the base64url challenge the client signed. */
export interface VerifyRegistrationInput {
  response: RegistrationResponseJSON;
  expectedChallenge: string;
  expectedOrigin: string | string[];
  expectedRpId: string | string[];
}

/** Inputs of an assertion check against a stored credential. */
export interface VerifyAssertionInput {
  response: AuthenticationResponseJSON;
  expectedChallenge: string;
  expectedOrigin: string | string[];
  expectedRpId: string | string[];
  credential: StoredPasskey;
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Verifies a registration (attestation) response: `webauthn.create`, challenge, origin, RP id hash,
 * user presence, and the attestation statement. Throws {@link WebAuthnError} on any failure.
 */
export async function verifyRegistration(input: VerifyRegistrationInput): Promise<StoredPasskey> {
  const [{ verifyRegistrationResponse }, { isoBase64URL }] = await library();
  let result;
  try {
    result = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: input.expectedChallenge,
      expectedOrigin: input.expectedOrigin,
      expectedRPID: input.expectedRpId,
      requireUserPresence: true,
      requireUserVerification: false,
    });
  } catch (error) {
    throw new WebAuthnError(reasonOf(error));
  }
  if (!result.verified) throw new WebAuthnError('Attestation could not be verified');
  const { credential } = result.registrationInfo;
  return {
    credentialId: credential.id,
    publicKey: isoBase64URL.fromBuffer(credential.publicKey),
    counter: credential.counter,
  };
}

/**
 * Verifies an assertion (`webauthn.get`) against a stored credential: credential id, challenge,
 * origin, RP id hash, user presence, signature and a counter that moved forward. Throws
 * {@link WebAuthnError} on any failure.
 */
export async function verifyAssertion(input: VerifyAssertionInput): Promise<{ newCounter: number }> {
  if (input.response.id !== input.credential.credentialId && input.response.rawId !== input.credential.credentialId) {
    throw new WebAuthnError('Assertion credential id does not match the registered passkey');
  }
  const [{ verifyAuthenticationResponse }, { isoBase64URL }] = await library();
  let result;
  try {
    result = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: input.expectedChallenge,
      expectedOrigin: input.expectedOrigin,
      expectedRPID: input.expectedRpId,
      credential: {
        id: input.credential.credentialId,
        publicKey: isoBase64URL.toBuffer(input.credential.publicKey),
        counter: input.credential.counter,
      },
      requireUserVerification: false,
    });
  } catch (error) {
    throw new WebAuthnError(reasonOf(error));
  }
  if (!result.verified) throw new WebAuthnError('Assertion signature could not be verified');
  return { newCounter: result.authenticationInfo.newCounter };
}
