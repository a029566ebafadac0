import { createHash, randomBytes } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';

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
  private counter = 0;
  private userHandle?: string;

  constructor(options: { rpId: string; origin: string }) {
    this.rpId = options.rpId;
    this.origin = options.origin;
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
    const attestationObject = isoCBOR.encode(
      new Map<string, any>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = this.clientData('webauthn.create', challengeB64url, faults.origin ?? this.origin);
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

  /** `navigator.credentials.get()`: signs `authenticatorData || SHA-256(clientDataJSON)`. */
  assert(challengeB64url: string, faults: CeremonyFaults = {}): AuthenticationResponseJSON {
    this.counter += 1;
    const flags = (faults.userPresent === false ? 0 : 0x01) | 0x04;
    const authData = this.authData(flags, faults.counter ?? this.counter, faults.rpId ?? this.rpId);
    const clientDataJSON = this.clientData('webauthn.get', challengeB64url, faults.origin ?? this.origin);
    const signed = new Uint8Array(authData.length + 32);
    signed.set(authData, 0);
    signed.set(sha256(clientDataJSON), authData.length);
    const signature = p256.sign(signed, this.secretKey, { format: 'der' });
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
