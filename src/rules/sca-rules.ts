import { ruleFamily } from './rule-ids.js';

/**
 * Sandbox rules of Strong Customer Authentication (issue 14), one table per rule family. The
 * README's "Strong Customer Authentication" section documents each of them.
 */

/**
 * Regions in SCA scope: the EU/EEA countries of API.md's rails table (the EU 27 plus IS, LI,
 * NO). CH and GB are in the table but outside the EU/EEA, so outside scope.
 */
export const SCA_REGIONS: ReadonlySet<string> = new Set(
  'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK IS LI NO'.split(' '),
);

/** sandbox-rules.md "Codes and literals": the code every SCA proof accepts (SMS, TOTP). */
export const SCA_SANDBOX_CODE = '123456';

/** Rule id of the SCA code (recorded when it answers a proof: factor confirmation, login, trust, quote authorization). */
export const scaCodeRules = ruleFamily('sca', 'sca.code', {
  '123456': 'SCA proof with the code 123456 (SMS_OTP or TOTP: factor confirm, login/complete, trust and untrust confirm, quotes authorize): accepted',
});

/** Rule id of the deprecated passkey literal in SCA. */
export const scaLegacyPasskeyRules = ruleFamily('sca', 'sca.passkey-signature', {
  'sandbox-valid-passkey-signature': 'SCA passkey assertion whose signature is sandbox-valid-passkey-signature (deprecated): accepted without WebAuthn checks',
});

/** Lifetimes and delays on the sandbox clock, in seconds. */
export const scaTimings = {
  /** An SMS/TOTP/passkey challenge (login, trust, quote) is open this long. */
  challengeSeconds: 5 * 60,
  /** A pending TOTP or passkey enrollment can be confirmed this long. */
  enrollmentSeconds: 10 * 60,
  /** An SCA login session (API.md Limits: session lifetime 15 minutes by default). */
  sessionSeconds: 15 * 60,
  /** A 2FA reset reaches LIVENESS_PASSED this long after it starts, unless the hosted page decides first. */
  resetLivenessSeconds: 30,
  /** The window of a 2FA reset; unfinished after it, the reset is EXPIRED. */
  resetWindowSeconds: 30 * 60,
  /** Re-sending a quote's SMS code sooner than this after the last send is `429 RATE_LIMITED`. */
  resendIntervalSeconds: 30,
} as const;

/**
 * Back-off on `POST /quotes/{id}/authorize`: after this many wrong proofs against one challenge,
 * another attempt sooner than `seconds` after the last wrong one is `429 RATE_LIMITED`.
 */
export const authorizeBackoff = { freeAttempts: 3, seconds: 30 } as const;

/** The contract's rate limit on 2FA reset initiation: 5 per 24 hours per customer. */
export const resetRateLimit = { count: 5, windowSeconds: 24 * 3600 } as const;

/**
 * The contract's lockout ladder (`RecordSecurityEventRequest.eventType`): the lock that starts
 * when the cumulative failed-login count reaches each milestone; 9 or more is a suspension.
 */
export const lockoutLadder: ReadonlyArray<{ failedAttempts: number; lockSeconds: number | 'SUSPENDED' }> = [
  { failedAttempts: 5, lockSeconds: 15 * 60 },
  { failedAttempts: 6, lockSeconds: 30 * 60 },
  { failedAttempts: 7, lockSeconds: 60 * 60 },
  { failedAttempts: 8, lockSeconds: 24 * 3600 },
  { failedAttempts: 9, lockSeconds: 'SUSPENDED' },
];

/** Rule ids of the lockout ladder (recorded when a failed attempt starts a lock or a suspension). */
export const lockoutRules = ruleFamily('sca', 'sca.lockout', {
  locked: '5 to 8 cumulative failed logins: the login locks (15 min, 30 min, 1 h, 24 h); 423 ACCOUNT_LOCKED meanwhile',
  suspended: '9 or more failed logins: suspended until RESET_PASSWORD_COMPLETED',
});

/** The lock a failed-attempt count earns (the highest milestone reached), or undefined below the first. */
export function lockFor(failedAttempts: number): number | 'SUSPENDED' | undefined {
  let lock: number | 'SUSPENDED' | undefined;
  for (const step of lockoutLadder) if (failedAttempts >= step.failedAttempts) lock = step.lockSeconds;
  return lock;
}

/**
 * Risk signals of `POST /sca/record-event`: after a `FAILED_LOGIN_ATTEMPT` the next quote
 * authorization sequence carries one extra step (purpose `RISK_STEP_UP`) that asks for a second
 * factor, so platforms can exercise multi-step challenges. A successful step clears the flag.
 */
export const STEP_UP_EVENT = 'FAILED_LOGIN_ATTEMPT';

/** Rule id of the risk signal (recorded when the event is recorded). */
export const riskSignalRules = ruleFamily('sca', 'sca.risk-signal', {
  'failed-login-attempt': `POST /sca/record-event ${STEP_UP_EVENT}: the next quote authorization asks for one more factor (RISK_STEP_UP)`,
});

/** WebAuthn relying party of SCA passkeys in the sandbox. */
export const scaRelyingParty = {
  id: 'app.example.com',
  name: 'Service sandbox',
  origins: ['https://app.example.com', 'http://localhost:3000'],
} as const;

/** Issuer shown by authenticator apps for a TOTP factor. */
export const TOTP_ISSUER = 'Service';
