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
} as const;
