/**
 * Webhook retry schedule, on the sandbox clock. An attempt fails on a non-2xx answer (409 from
 * a receiver that already processed the id counts as delivered), a timeout or a refused
 * connection; the next attempt of the same event (same `id`, same body) follows after
 * 30 s x 2^(n-1), where n is the number of the attempt that failed:
 * 30s, 1m, 2m, 4m, 8m, 16m, 32m, 1h04m, 2h08m, 4h16m, 8h32m. After the 12th attempt
 * (about 17 h after the first) the event is marked FAILED; `webhooks replay` sends it again.
 */
export const RETRY_BASE_MS = 30_000;

/** Attempts per delivery round (the first one plus 11 retries). */
export const MAX_ATTEMPTS = 12;

/** How long one attempt may take, connection and response body included. */
export const ATTEMPT_TIMEOUT_MS = 5_000;

/** The wait before the attempt after attempt number `failedAttempt` (1-based). */
export function retryDelayMs(failedAttempt: number): number {
  return RETRY_BASE_MS * 2 ** (failedAttempt - 1);
}

/** Whether a receiver's HTTP status acknowledges the event. */
export function acknowledges(status: number): boolean {
  // The contract's test-webhook receiver answers 409 for an id it has already processed.
  return (status >= 200 && status < 300) || status === 409;
}
