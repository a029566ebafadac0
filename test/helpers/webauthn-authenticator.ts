import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, webcrypto, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '../../src/crypto/webauthn.js';

const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest());
const utf8 = (text: string) => new TextEncoder().encode(text);
const toB64url = (bytes: Uint8Array) => isoBase64URL.fromBuffer(new Uint8Array(bytes));

/** Deliberate faults a test can ask the authenticator for, one ceremony at a time. */
export interface CeremonyFaults {
  /** Client data `origin` other than the authenticator's. */
  origin?: string;
  /** Authenticator data hashed over another RP id. */
  rpId?: string;
  /** Clear the user-presence flag. */
  userPresent?: false;
  /** Report this counter instead of the next one. */
  counter?: number;
  /** Flip a bit of the signature. */
  badSignature?: true;
  /** Attestation statement to produce (default `none`). */
  attestation?: Attestation;
}

/** An attestation certificate chain (leaf first, DER) and the leaf's private key. */
export interface AttestationCertificate {
  chain: Uint8Array[];
  privateKey: KeyObject;
}

/** `none`, `packed` self attestation, `packed` with a certificate chain, `fido-u2f`, or any other format name with an empty statement. */
export type Attestation =
  | { format: 'none' }
  | { format: 'packed-self'; badSignature?: true }
  | { format: 'packed'; certificate: AttestationCertificate; badSignature?: true }
  | { format: 'fido-u2f'; certificate: AttestationCertificate }
  | { format: 'other'; fmt: string; attStmt: Map<string, unknown> };

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

/**
 * A P-256 attestation certificate as authenticator makers issue them (OU=Authenticator
 * Attestation, not a CA), signed by a root CA of its own when `withRoot`, else self-signed.
 */
export async function attestationCertificate(options: { withRoot?: boolean; subject?: string } = {}): Promise<AttestationCertificate> {
  // @peculiar/x509 (a test-only dependency) needs the reflect-metadata polyfill loaded first.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as Crypto);
  const subject = options.subject ?? 'C=US, O=Sandbox Authenticators, OU=Authenticator Attestation, CN=Sandbox Key';
  const validity = { notBefore: new Date('2024-01-01'), notAfter: new Date('2034-01-01') };
  const leafKeys = (await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify'])) as CryptoKeyPair;
  const chain: Uint8Array[] = [];
  if (options.withRoot) {
    const rootKeys = (await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify'])) as CryptoKeyPair;
    const root = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: '01', name: 'C=US, O=Sandbox Authenticators, CN=Sandbox Root', keys: rootKeys, signingAlgorithm: ecdsa, extensions: [new x509.BasicConstraintsExtension(true, undefined, true)], ...validity });
    const leaf = await x509.X509CertificateGenerator.create({ serialNumber: '02', subject, issuer: root.subject, publicKey: leafKeys.publicKey, signingKey: rootKeys.privateKey, signingAlgorithm: ecdsa, extensions: [new x509.BasicConstraintsExtension(false)], ...validity });
    chain.push(new Uint8Array(leaf.rawData), new Uint8Array(root.rawData));
  } else {
    const leaf = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: '03', name: subject, keys: leafKeys, signingAlgorithm: ecdsa, extensions: [new x509.BasicConstraintsExtension(false)], ...validity });
    chain.push(new Uint8Array(leaf.rawData));
  }
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey));
  return { chain, privateKey: createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' }) };
}

/**
 * A software WebAuthn authenticator (ES256, `none` attestation) for tests: it makes the same
 * JSON a browser returns from `navigator.credentials.create()` / `.get()`, with a real P-256 key
 * and a real signature counter.
 */
export class SoftwareAuthenticator {
  readonly rpId: string;
  readonly origin: string;
  readonly credentialId: Uint8Array = new Uint8Array(randomBytes(32));
  private readonly secretKey = p256.utils.randomSecretKey();
  private readonly ed25519 = generateKeyPairSync('ed25519');
  private readonly algorithm: 'ES256' | 'EdDSA';
  private counter = 0;
  private userHandle?: string;

  constructor(options: { rpId: string; origin: string; algorithm?: 'ES256' | 'EdDSA' }) {
    this.rpId = options.rpId;
    this.origin = options.origin;
    this.algorithm = options.algorithm ?? 'ES256';
  }

  /** The credential signature over `message`: DER ECDSA P-256 / SHA-256, or Ed25519. */
  private signCredential(message: Uint8Array): Uint8Array {
    return this.algorithm === 'EdDSA' ? new Uint8Array(sign(null, message, this.ed25519.privateKey)) : p256.sign(message, this.secretKey, { format: 'der' });
  }

  /** Base64url credential id. */
  get id(): string {
    return toB64url(this.credentialId);
  }

  private authData(flags: number, counter: number, rpId: string, attested?: Uint8Array): Uint8Array {
    const head = new Uint8Array(37);
    head.set(sha256(utf8(rpId)), 0);
    head[32] = flags;
    new DataView(head.buffer).setUint32(33, counter);
    if (!attested) return head;
    const out = new Uint8Array(head.length + attested.length);
    out.set(head, 0);
    out.set(attested, head.length);
    return out;
  }

  private coseKey(): Uint8Array {
    if (this.algorithm === 'EdDSA') {
      const x = Buffer.from(this.ed25519.publicKey.export({ format: 'jwk' }).x!, 'base64url');
      return isoCBOR.encode(new Map<number, number | Uint8Array>([[1, 1], [3, -8], [-1, 6], [-2, new Uint8Array(x)]]));
    }
    const point = p256.getPublicKey(this.secretKey, false);
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, point.slice(1, 33)],
        [-3, point.slice(33, 65)],
      ]),
    );
  }

  private clientData(type: string, challenge: string, origin: string): Uint8Array {
    return utf8(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** `navigator.credentials.create()`: `challengeB64url` is the base64url challenge. */
  register(challengeB64url: string, user: { userId: string; userName: string }, faults: CeremonyFaults = {}): RegistrationResponseJSON {
    this.userHandle = isoBase64URL.fromUTF8String(user.userId);
    const cose = this.coseKey();
    const attested = new Uint8Array(16 + 2 + this.credentialId.length + cose.length);
    new DataView(attested.buffer).setUint16(16, this.credentialId.length);
    attested.set(this.credentialId, 18);
    attested.set(cose, 18 + this.credentialId.length);
    const flags = (faults.userPresent === false ? 0 : 0x01) | 0x04 | 0x40;
    const authData = this.authData(flags, faults.counter ?? this.counter, faults.rpId ?? this.rpId, attested);
    const clientDataJSON = this.clientData('webauthn.create', challengeB64url, faults.origin ?? this.origin);
    const [fmt, attStmt] = this.statement(faults.attestation ?? { format: 'none' }, authData, sha256(clientDataJSON));
    const attestationObject = isoCBOR.encode(
      new Map<string, any>([
        ['fmt', fmt],
        ['attStmt', attStmt],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: toB64url(clientDataJSON),
        attestationObject: toB64url(attestationObject),
        transports: ['internal', 'hybrid'],
      },
    };
  }

  private statement(attestation: Attestation, authData: Uint8Array, clientDataHash: Uint8Array): [string, Map<string, unknown>] {
    const signed = new Uint8Array(Buffer.concat([authData, clientDataHash]));
    const flip = (sig: Uint8Array, bad?: true) => (bad ? (sig[sig.length - 1]! ^= 0x01, sig) : sig);
    switch (attestation.format) {
      case 'none':
        return ['none', new Map()];
      case 'packed-self':
        return ['packed', new Map<string, unknown>([['alg', this.algorithm === 'EdDSA' ? -8 : -7], ['sig', flip(this.signCredential(signed), attestation.badSignature)]])];
      case 'packed': {
        const sig = new Uint8Array(sign('sha256', signed, attestation.certificate.privateKey));
        return ['packed', new Map<string, unknown>([['alg', -7], ['sig', flip(sig, attestation.badSignature)], ['x5c', attestation.certificate.chain]])];
      }
      case 'fido-u2f': {
        const point = p256.getPublicKey(this.secretKey, false);
        const data = Buffer.concat([new Uint8Array([0]), authData.subarray(0, 32), clientDataHash, this.credentialId, point]);
        return ['fido-u2f', new Map<string, unknown>([['sig', new Uint8Array(sign('sha256', data, attestation.certificate.privateKey))], ['x5c', [attestation.certificate.chain[0]]]])];
      }
      case 'other':
        return [attestation.fmt, attestation.attStmt];
    }
  }

  /** `navigator.credentials.get()`: signs `authenticatorData || SHA-256(clientDataJSON)`. */
  assert(challengeB64url: string, faults: CeremonyFaults = {}): AuthenticationResponseJSON {
    this.counter += 1;
    const flags = (faults.userPresent === false ? 0 : 0x01) | 0x04;
    const authData = this.authData(flags, faults.counter ?? this.counter, faults.rpId ?? this.rpId);
    const clientDataJSON = this.clientData('webauthn.get', challengeB64url, faults.origin ?? this.origin);
    const signed = new Uint8Array(authData.length + 32);
    signed.set(authData, 0);
    signed.set(sha256(clientDataJSON), authData.length);
    const signature = this.signCredential(signed);
    if (faults.badSignature) signature[signature.length - 1] ^= 0x01;
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: toB64url(clientDataJSON),
        authenticatorData: toB64url(authData),
        signature: toB64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
    };
  }
}
