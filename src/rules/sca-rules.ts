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

/** WebAuthn relying party of SCA passkeys in the sandbox. */
export const scaRelyingParty = {
  id: 'app.example.com',
  name: 'Service sandbox',
  origins: ['https://app.example.com', 'http://localhost:3000'],
} as const;

/** Issuer shown by authenticator apps for a TOTP factor. */
export const TOTP_ISSUER = 'Service';
