import { createHash } from 'node:crypto';
import { ApiError, ErrorCode } from '../core/errors.js';
import type { AppContext } from './env.js';
import { requestHeader } from './headers.js';

/** How long a key is remembered, on the sandbox clock. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What an operation produces: a status and a JSON body. */
export interface OperationResult {
  status: number;
  body: unknown;
}

/**
 * Runs a write under the request's `Idempotency-Key` (if any). The key is per platform and
 * operation: the same key with the same request replays the first response (with header
 * `Idempotent-Replayed: true`); with a different request it is `409 CONFLICT`. The lookup, the
 * write and the stored response share one transaction, so concurrent retries run it once.
 * Failed requests (thrown errors) are not remembered, so a corrected retry can succeed.
 */
export function idempotent(
  c: AppContext,
  operationId: string,
  request: unknown,
  run: () => OperationResult,
): Response {
  const key = requestHeader(c, 'Idempotency-Key');
  if (key === undefined) return respond(c, run());
  if (key.length === 0 || key.length > 255) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, 'The Idempotency-Key header must be 1 to 255 characters.', {
      errors: [{ field: 'Idempotency-Key', constraint: { minLength: 1, maxLength: 255 }, message: 'Use a UUID per logical request.' }],
    });
  }
  const ctx = c.get('ctx');
  const platformId = c.get('platform').id;
  const requestHash = createHash('sha256')
    .update(`${c.req.method} ${c.req.path}\n${JSON.stringify(request ?? null)}`)
    .digest('hex');
  const outcome = ctx.tx(() => {
    const now = ctx.clock.now();
    const stored = ctx.idempotency.get(platformId, operationId, key, now - IDEMPOTENCY_TTL_MS);
    if (stored) {
      if (stored.requestHash !== requestHash) {
        throw new ApiError(
          409,
          ErrorCode.CONFLICT,
          'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
          { idempotencyKey: key },
        );
      }
      return { result: { status: stored.status, body: JSON.parse(stored.body) as unknown }, replayed: true };
    }
    const result = run();
    ctx.idempotency.expire(now - IDEMPOTENCY_TTL_MS);
    ctx.idempotency.put(platformId, operationId, key, {
      requestHash,
      status: result.status,
      body: JSON.stringify(result.body),
      createdAt: now,
    });
    return { result, replayed: false };
  });
  if (outcome.replayed) c.header('Idempotent-Replayed', 'true');
  return respond(c, outcome.result);
}

function respond(c: AppContext, result: OperationResult): Response {
  return c.json(result.body as object, result.status as 200);
}
