import { ruleFamily } from './rule-ids.js';

/**
 * Embedded-wallet sandbox values (sandbox-rules.md "Codes and literals"; API.md "Sandbox
 * behaviour" and "Limits"). One row per rule.
 */
export const walletRules = {
  /** The OTP every `EMAIL_OTP` / `SMS_OTP` verify must carry (HPKE-encrypted as in production). */
  otpCode: '000000',
  /** Deprecated `Service-Wallet-Signature` literal, still accepted without a cryptographic check. */
  legacySignature: 'sandbox-valid-signature',
  /** Deprecated passkey assertion signature, still accepted and skipping WebAuthn checks. */
  legacyPasskeySignature: 'sandbox-valid-passkey-signature',
  /** Session lifetime (API.md "Limits": 15 minutes by default). */
  sessionSeconds: 15 * 60,
  /** Lifetime of a pending signed request (202 leg) and of a passkey challenge. */
  pendingRequestSeconds: 5 * 60,
  /** OTP lifetime when the platform's embeddedWalletConfig has no expirationSeconds. */
  defaultOtpSeconds: 300,
  /**
   * The sandbox enclave's P-256 signing key (the role of the enclave quorum key), the same in
   * every sandbox and published on purpose: it signs every enclave bundle (OTP encryption target,
   * wallet export) and the OTP `verificationToken`, so a client pins its public key once, e.g. as
   * `@turnkey/crypto`'s `dangerouslyOverrideSignerPublicKey`. Being public, it proves nothing
   * outside a sandbox; production bundles are signed by the service's own key.
   */
  enclaveSigningSecret: '47dfea5f417e1c48e4b664557e23c242dbd028531c19c9c72f231275e0db4815',
  /** Its public key, uncompressed SEC1 hex: the `enclaveQuorumPublic` of every bundle (`GET /_sandbox/enclave`). */
  enclaveQuorumPublic: '041359363d76a7c1c4e820b49726eacdd2f3a12d4bb7b051aa2c0bbe06ea84ea2108edb9c692c7c9c830525c01bf5663125dddcc168d76c99508af854d43ff8a4b',
} as const;

/** Rule ids of the embedded-wallet literals (recorded where each is accepted or refused). */
export const walletLiteralRules = ruleFamily('embedded-wallet', 'wallet', {
  'otp.000000': 'EMAIL_OTP / SMS_OTP verify whose HPKE bundle decrypts to 000000: accepted',
  'otp.other': 'EMAIL_OTP / SMS_OTP verify with any other code: 401 UNAUTHORIZED "Invalid OTP code"',
  'signature.sandbox-valid-signature': 'Service-Wallet-Signature sandbox-valid-signature (deprecated): accepted without a cryptographic check',
  'passkey-signature.sandbox-valid-passkey-signature': 'Passkey assertion signature sandbox-valid-passkey-signature (deprecated): accepted without WebAuthn checks',
  'oidc-token.sandbox-valid-oidc-token': 'OAuth oidcToken sandbox-valid-oidc-token: refused (no longer accepted)',
});
