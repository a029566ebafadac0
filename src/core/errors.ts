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
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The wire envelope. */
  toBody(): ErrorBody {
    const body: ErrorBody = { status: this.status, code: this.code, message: this.message };
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
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
