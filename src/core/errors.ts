/**
 * The one error type of the sandbox. Services throw it; `app.onError` serializes it into the
 * contract's envelope `{ status, code, message, details? }`. No handler builds an error body.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Whether a retry of the same request can succeed (the `x-should-retry` header); see `retryHint`. */
    readonly retry?: RetryHint,
  ) {
    // An answer to a request, not a fault: no stack trace is captured (capturing one through the
    // request's chain of awaits cost a bad request about a sixth of its CPU).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'ApiError';
  }

  /** The wire envelope. */
  toBody(): ErrorBody {
    const body: ErrorBody = { status: this.status, code: this.code, message: this.message };
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

/**
 * What an error tells a client about retrying it: `retryAfterSeconds` marks a retriable answer
 * (`x-should-retry: true` and `Retry-After`); `shouldRetry: false` marks one no retry can change.
 */
export interface RetryHint {
  shouldRetry?: boolean;
  retryAfterSeconds?: number;
}

/**
 * The retry hint of an error as the client sees it: `true` with a `Retry-After` for an error that
 * says so (an injected fault, a delivery in progress) and for 408 and 429; `false` for every other
 * 4xx (a 409 describes a state a retry cannot change) and for 501; none for other 5xx.
 */
export function retryHint(error: ApiError): { shouldRetry: boolean; retryAfterSeconds?: number } | undefined {
  if (error.retry?.retryAfterSeconds !== undefined) return { shouldRetry: true, retryAfterSeconds: error.retry.retryAfterSeconds };
  if (error.retry?.shouldRetry !== undefined) return { shouldRetry: error.retry.shouldRetry };
  if (error.status === 408 || error.status === 429) {
    const after = error.details?.retryAfterSeconds;
    return { shouldRetry: true, retryAfterSeconds: typeof after === 'number' ? after : 1 };
  }
  if ((error.status >= 400 && error.status < 500) || error.status === 501) return { shouldRetry: false };
  return undefined;
}

/** The contract's error envelope. */
export interface ErrorBody {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A field error of `details.errors[]` on `400 INVALID_INPUT`. */
export interface FieldError {
  /** Dot path into the request, e.g. `address.postalCode` or `owners.0.lastName`. */
  field: string;
  /** The rule that failed, in the contract's `FieldConstraint` shape. */
  constraint?: Record<string, unknown>;
  message: string;
}

/** Error codes by status, as the contract's Error<status> schemas enumerate them (the ones the sandbox raises). */
export const ErrorCode = {
  INVALID_INPUT: 'INVALID_INPUT',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  END_USER_TERMS_NOT_ACCEPTED: 'END_USER_TERMS_NOT_ACCEPTED',
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  CONFLICT: 'CONFLICT',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  NOT_IMPLEMENTED: 'NOT_IMPLEMENTED',
} as const;

/** `400 INVALID_INPUT` with the given field errors. */
export function invalidInput(message: string, errors: FieldError[] = []): ApiError {
  return new ApiError(400, ErrorCode.INVALID_INPUT, message, errors.length ? { errors } : undefined);
}

/** `404` for a resource that does not exist for the calling platform (another platform's id included). */
export function notFound(code: string, message: string): ApiError {
  return new ApiError(404, code, message);
}
