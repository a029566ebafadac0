import { createHash, createPublicKey, verify as verifySignature, constants, X509Certificate, type KeyObject, type JsonWebKey } from 'node:crypto';
import { decodeCBORToNativeValue, decodeCBORToNativeValueNoLeftoverBytes } from '@oslojs/cbor';
import {
  AttestationStatementFormat,
  ClientDataType,
  COSEKeyType,
  COSEPublicKey,
  coseAlgorithmEdDSA,
  coseAlgorithmES256,
  coseAlgorithmRS256,
  coseEllipticCurveEd25519,
  coseEllipticCurveP256,
  createAssertionSignatureMessage,
  parseAttestationObject,
  parseAuthenticatorData,
  parseClientDataJSON,
  type AttestationStatement,
  type AuthenticatorData,
} from '@oslojs/webauthn';

/**
 * WebAuthn verification for passkey credentials (API.md "Sandbox behaviour": full WebAuthn
 * checks). @oslojs/webauthn parses the CBOR attestation object, the authenticator data, the COSE
 * key and the client data; node:crypto verifies the signatures and, for attestation statements
 * that carry certificates, reads them with its built-in X509Certificate. Together they weigh a
 * fifth of @simplewebauthn/server with the ASN.1/X.509 packages its attestation formats pull in.
 *
 * Checked, as WebAuthn Level 2 §7.1 and §7.2 list them: the ceremony type, challenge, origin,
 * RP id hash, user-presence flag, credential id, the credential algorithm, the attestation
 * statement (`none`, `packed` self or x5c, `fido-u2f`, `android-key`, `apple`), the assertion
 * signature and a signature counter that moves forward. Attestation certificates are checked for
 * their signatures along the chain and against the statement, not against vendor roots: the
 * sandbox trusts no attestation root, like a relying party without a metadata service. `tpm` and
 * `android-safetynet` statements are refused with a reason saying so. Pure: no DB, no clock.
 */

/** Why a WebAuthn ceremony was rejected; `reason` names the failed check. */
export class WebAuthnError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'WebAuthnError';
  }
}

/** `PublicKeyCredential.toJSON()` of `navigator.credentials.create()`, as a browser sends it. */
export interface RegistrationResponseJSON {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; attestationObject: string; transports?: string[]; [key: string]: unknown };
  clientExtensionResults?: Record<string, unknown>;
  authenticatorAttachment?: string;
}

/** `PublicKeyCredential.toJSON()` of `navigator.credentials.get()`. */
export interface AuthenticationResponseJSON {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
  clientExtensionResults?: Record<string, unknown>;
  authenticatorAttachment?: string;
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

const fail = (reason: string): never => {
  throw new WebAuthnError(reason);
};
const sha256 = (...parts: Uint8Array[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
};
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const list = (value: string | string[]) => (Array.isArray(value) ? value : [value]);
const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.from(a).equals(Buffer.from(b));

/** Base64url (padding tolerated) to bytes; anything else names the field. */
function bytesOf(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]*={0,2}$/.test(value) || value.length === 0) fail(`${field} is not base64url`);
  return new Uint8Array(Buffer.from(value as string, 'base64url'));
}

/** Steps shared by both ceremonies: client data type, challenge and origin (§7.1 steps 7–9). */
function checkClientData(clientDataJSON: Uint8Array, type: ClientDataType, expectedChallenge: string, expectedOrigin: string | string[]) {
  let clientData;
  try {
    clientData = parseClientDataJSON(clientDataJSON);
  } catch (error) {
    return fail((error as Error).message);
  }
  if (clientData.type !== type) fail(`Unexpected client data type: expected ${type === ClientDataType.Create ? 'webauthn.create' : 'webauthn.get'}`);
  if (!equalBytes(clientData.challenge, bytesOf(expectedChallenge, 'expected challenge'))) fail('Unexpected challenge: the client data does not carry the challenge this ceremony issued');
  if (!list(expectedOrigin).includes(clientData.origin)) fail(`Unexpected origin "${clientData.origin}": expected ${list(expectedOrigin).join(' or ')}`);
}

/** RP id hash and user presence (§7.1 steps 13–14, §7.2 steps 15–16). */
function checkAuthenticatorData(data: AuthenticatorData, expectedRpId: string | string[]) {
  if (!list(expectedRpId).some((rpId) => data.verifyRelyingPartyIdHash(rpId))) fail(`Unexpected RP ID hash: expected the hash of ${list(expectedRpId).join(' or ')}`);
  if (!data.userPresent) fail('User not present: the authenticator data does not have the user-present flag');
}

/** The algorithms a credential may use, with how node:crypto verifies each. */
const ALGORITHMS = new Map<number, { keyType: COSEKeyType; verify: (key: KeyObject, message: Uint8Array, signature: Uint8Array) => boolean }>([
  [coseAlgorithmES256, { keyType: COSEKeyType.EC2, verify: (key, m, s) => verifySignature('sha256', m, { key, dsaEncoding: 'der' }, s) }],
  [coseAlgorithmRS256, { keyType: COSEKeyType.RSA, verify: (key, m, s) => verifySignature('sha256', m, key, s) }],
  [-37 /* PS256 */, { keyType: COSEKeyType.RSA, verify: (key, m, s) => verifySignature('sha256', m, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, s) }],
  [coseAlgorithmEdDSA, { keyType: COSEKeyType.OKP, verify: (key, m, s) => verifySignature(null, m, key, s) }],
]);

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** A COSE public key as a JWK and a node KeyObject, with its algorithm. */
function keyOf(cose: COSEPublicKey) {
  let jwk: JsonWebKey;
  let algorithm: number;
  try {
    algorithm = cose.algorithm();
    const raw = cose.decoded as Record<string, Uint8Array | number>;
    switch (cose.type()) {
      case COSEKeyType.EC2: {
        if (cose.ec2().curve !== coseEllipticCurveP256) fail('Unsupported curve: only P-256 EC2 keys are accepted');
        jwk = { kty: 'EC', crv: 'P-256', x: b64(raw['-2'] as Uint8Array), y: b64(raw['-3'] as Uint8Array) };
        break;
      }
      case COSEKeyType.RSA:
        cose.rsa();
        jwk = { kty: 'RSA', n: b64(raw['-1'] as Uint8Array), e: b64(raw['-2'] as Uint8Array) };
        break;
      case COSEKeyType.OKP:
        if (cose.okp().curve !== coseEllipticCurveEd25519) fail('Unsupported curve: only Ed25519 OKP keys are accepted');
        jwk = { kty: 'OKP', crv: 'Ed25519', x: b64(raw['-2'] as Uint8Array) };
        break;
      default:
        return fail('Unsupported credential public key type');
    }
  } catch (error) {
    if (error instanceof WebAuthnError) throw error;
    return fail(`Credential public key is not a valid COSE key: ${(error as Error).message}`);
  }
  const scheme = ALGORITHMS.get(algorithm);
  if (!scheme || scheme.keyType !== cose.type()) fail(`Unsupported credential algorithm ${algorithm}: accepted are ES256 (-7), RS256 (-257), PS256 (-37) and EdDSA (-8)`);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    return fail('Credential public key is not a point or modulus node:crypto accepts');
  }
  return { jwk, key, algorithm, verify: (message: Uint8Array, signature: Uint8Array) => safeVerify(() => scheme!.verify(key, message, signature)) };
}

const safeVerify = (check: () => boolean) => {
  try {
    return check();
  } catch {
    return false;
  }
};

/** The COSE key of the attested credential, and its exact bytes inside the authenticator data. */
function attestedKey(authData: Uint8Array) {
  const idLength = (authData[53]! << 8) | authData[54]!;
  const start = 55 + idLength;
  let size: number;
  try {
    [, size] = decodeCBORToNativeValue(authData.subarray(start), 4);
  } catch {
    return fail('Credential public key is not CBOR');
  }
  return authData.slice(start, start + size);
}

/** The stored COSE bytes as a key again. */
function storedKey(publicKey: string) {
  let decoded;
  try {
    decoded = decodeCBORToNativeValueNoLeftoverBytes(bytesOf(publicKey, 'stored public key'), 4);
  } catch (error) {
    if (error instanceof WebAuthnError) throw error;
    return fail('The stored credential public key is not CBOR');
  }
  if (typeof decoded !== 'object' || decoded === null) fail('The stored credential public key is not a COSE map');
  return keyOf(new COSEPublicKey(decoded as object));
}

function certificates(list: Uint8Array[] | null | undefined, format: string) {
  if (!list || list.length === 0) fail(`The ${format} attestation statement has no certificate`);
  try {
    return list!.map((der) => new X509Certificate(Buffer.from(der)));
  } catch {
    return fail(`A ${format} attestation certificate is not DER X.509`);
  }
}

/** Each certificate signed by the next one (no vendor root is trusted, see the module comment). */
function checkChain(chain: X509Certificate[], format: string) {
  for (let i = 0; i + 1 < chain.length; i += 1) {
    if (!safeVerify(() => chain[i]!.verify(chain[i + 1]!.publicKey))) fail(`The ${format} attestation certificate chain does not verify at certificate ${i + 1}`);
  }
}

/** A certificate's key is the credential's key (android-key, apple). */
function sameKey(cert: X509Certificate, jwk: JsonWebKey) {
  const certJwk = cert.publicKey.export({ format: 'jwk' });
  return (['kty', 'crv', 'x', 'y', 'n', 'e'] as const).every((k) => certJwk[k] === jwk[k]);
}

/** Verifies the attestation statement (§8) against the authenticator data and client data hash. */
function checkAttestation(statement: AttestationStatement, fmt: unknown, authData: Uint8Array, clientDataHash: Uint8Array, credential: ReturnType<typeof keyOf>, credentialId: Uint8Array) {
  const signed = concat(authData, clientDataHash);
  const read = <T>(get: () => T, format: string): T => {
    try {
      return get();
    } catch (error) {
      return fail(`Malformed ${format} attestation statement: ${(error as Error).message}`);
    }
  };
  switch (statement.format) {
    case AttestationStatementFormat.None:
      if (Object.keys(statement.decoded).length > 0) fail('A "none" attestation statement must be empty');
      return;
    case AttestationStatementFormat.Packed: {
      const packed = read(() => statement.packed(), 'packed');
      if (!packed.certificates) {
        // Self attestation: signed by the credential key itself, with its algorithm.
        if (packed.algorithm !== credential.algorithm) fail('Packed self attestation uses another algorithm than the credential');
        if (!credential.verify(signed, packed.signature)) fail('Packed self attestation signature could not be verified');
        return;
      }
      const chain = certificates(packed.certificates, 'packed');
      const leaf = chain[0]!;
      if (leaf.ca) fail('The packed attestation certificate must not be a CA certificate');
      if (!/OU=Authenticator Attestation/.test(leaf.subject)) fail('The packed attestation certificate subject must have OU=Authenticator Attestation');
      const hash = packed.algorithm === -7 || packed.algorithm === -257 || packed.algorithm === -37 ? 'sha256' : packed.algorithm === -35 ? 'sha384' : packed.algorithm === -36 ? 'sha512' : null;
      if (!hash) fail(`Unsupported packed attestation algorithm ${packed.algorithm}`);
      const ok = safeVerify(() =>
        packed.algorithm === -37
          ? verifySignature(hash, signed, { key: leaf.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, packed.signature)
          : verifySignature(hash, signed, { key: leaf.publicKey, dsaEncoding: 'der' }, packed.signature),
      );
      if (!ok) fail('Packed attestation signature could not be verified with the attestation certificate');
      checkChain(chain, 'packed');
      return;
    }
    case AttestationStatementFormat.FIDOU2F: {
      const u2f = read(() => statement.fidoU2F(), 'fido-u2f');
      const [cert] = certificates([u2f.certificate], 'fido-u2f');
      if (credential.jwk.kty !== 'EC') fail('A fido-u2f credential must be a P-256 key');
      const point = concat(new Uint8Array([4]), Buffer.from(credential.jwk.x!, 'base64url'), Buffer.from(credential.jwk.y!, 'base64url'));
      const data = concat(new Uint8Array([0]), authData.subarray(0, 32), clientDataHash, credentialId, point);
      if (!safeVerify(() => verifySignature('sha256', data, { key: cert!.publicKey, dsaEncoding: 'der' }, u2f.signature))) fail('fido-u2f attestation signature could not be verified');
      return;
    }
    case AttestationStatementFormat.AndroidKey: {
      const android = read(() => statement.androidKey(), 'android-key');
      const chain = certificates(android.certificates, 'android-key');
      if (!sameKey(chain[0]!, credential.jwk)) fail('The android-key attestation certificate does not hold the credential public key');
      if (!Buffer.from(chain[0]!.raw).includes(Buffer.from(clientDataHash))) fail('The android-key attestation challenge is not the client data hash');
      if (!safeVerify(() => verifySignature('sha256', signed, { key: chain[0]!.publicKey, dsaEncoding: 'der' }, android.signature))) fail('android-key attestation signature could not be verified');
      checkChain(chain, 'android-key');
      return;
    }
    case AttestationStatementFormat.AppleAnonymous: {
      const apple = read(() => statement.appleAnonymous(), 'apple');
      const chain = certificates(apple.certificates, 'apple');
      // §8.8: the nonce SHA-256(authData || clientDataHash) sits in the leaf's 1.2.840.113635.100.8.2 extension.
      if (!Buffer.from(chain[0]!.raw).includes(Buffer.from(sha256(signed)))) fail('The apple attestation certificate does not carry this ceremony\'s nonce');
      if (!sameKey(chain[0]!, credential.jwk)) fail('The apple attestation certificate does not hold the credential public key');
      checkChain(chain, 'apple');
      return;
    }
    default:
      fail(`The sandbox does not verify "${String(fmt)}" attestation statements; request attestation "none" (the WebAuthn default) or "direct" from an authenticator that answers "packed"`);
  }
}

/**
 * Verifies a registration (attestation) response: `webauthn.create`, challenge, origin, RP id hash,
 * user presence, credential id and algorithm, and the attestation statement. Throws
 * {@link WebAuthnError} on any failure.
 */
export async function verifyRegistration(input: VerifyRegistrationInput): Promise<StoredPasskey> {
  const response = (input.response ?? {}) as Partial<RegistrationResponseJSON>;
  const inner = (response.response ?? {}) as Partial<RegistrationResponseJSON['response']>;
  const clientDataJSON = bytesOf(inner.clientDataJSON, 'response.clientDataJSON');
  const attestationBytes = bytesOf(inner.attestationObject, 'response.attestationObject');
  checkClientData(clientDataJSON, ClientDataType.Create, input.expectedChallenge, input.expectedOrigin);

  let attestation;
  let raw;
  try {
    attestation = parseAttestationObject(attestationBytes);
    raw = decodeCBORToNativeValueNoLeftoverBytes(attestationBytes, 4) as { fmt: string; authData: Uint8Array };
  } catch (error) {
    return fail((error as Error).message);
  }
  const { authenticatorData } = attestation;
  checkAuthenticatorData(authenticatorData, input.expectedRpId);
  const attested = authenticatorData.credential ?? fail('The authenticator data carries no attested credential');
  const credentialId = b64(attested.id);
  if ((response.id !== undefined && response.id !== credentialId) || (response.rawId !== undefined && response.rawId !== credentialId)) {
    fail('The credential id does not match the one in the authenticator data');
  }
  const credential = keyOf(attested.publicKey);
  checkAttestation(attestation.attestationStatement, raw.fmt, raw.authData, sha256(clientDataJSON), credential, attested.id);
  return { credentialId, publicKey: b64(attestedKey(raw.authData)), counter: authenticatorData.signatureCounter };
}

/**
 * Verifies an assertion (`webauthn.get`) against a stored credential: credential id, challenge,
 * origin, RP id hash, user presence, signature and a counter that moved forward. Throws
 * {@link WebAuthnError} on any failure.
 */
export async function verifyAssertion(input: VerifyAssertionInput): Promise<{ newCounter: number }> {
  const response = (input.response ?? {}) as Partial<AuthenticationResponseJSON>;
  if (response.id !== undefined && response.rawId !== undefined && response.id !== response.rawId) fail('Assertion id and rawId differ: send both as the base64url credential id');
  if (response.id !== input.credential.credentialId && response.rawId !== input.credential.credentialId) {
    fail('Assertion credential id does not match the registered passkey');
  }
  const inner = (response.response ?? {}) as Partial<AuthenticationResponseJSON['response']>;
  const clientDataJSON = bytesOf(inner.clientDataJSON, 'response.clientDataJSON');
  const authData = bytesOf(inner.authenticatorData, 'response.authenticatorData');
  const signature = bytesOf(inner.signature, 'response.signature');
  checkClientData(clientDataJSON, ClientDataType.Get, input.expectedChallenge, input.expectedOrigin);
  let data;
  try {
    data = parseAuthenticatorData(authData);
  } catch (error) {
    return fail((error as Error).message);
  }
  checkAuthenticatorData(data, input.expectedRpId);
  const key = storedKey(input.credential.publicKey);
  if (!key.verify(createAssertionSignatureMessage(authData, clientDataJSON), signature)) fail('Assertion signature could not be verified with the registered public key');
  // §7.2 step 21: a counter that does not move forward (when either side counts) may be a cloned authenticator.
  const previous = input.credential.counter;
  if ((data.signatureCounter > 0 || previous > 0) && data.signatureCounter <= previous) {
    fail(`Signature counter ${data.signatureCounter} did not move forward from ${previous}: possibly a cloned authenticator`);
  }
  return { newCounter: data.signatureCounter };
}
