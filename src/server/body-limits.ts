import type { MiddlewareHandler } from 'hono';
import { ApiError, ErrorCode } from '../core/errors.js';
import type { AppEnv } from './env.js';
import { requestHeader } from './headers.js';

const MB = 1024 * 1024;
/** Room for the form fields and part headers of a multipart upload around its file. */
const MULTIPART_OVERHEAD = 64 * 1024;

/** One body limit: which requests, how many bytes, and how an over-limit body is answered. */
interface BodyLimit {
  name: string;
  matches(path: string): boolean;
  maxBytes: number;
  /** The contract's 400 where the operation documents it, else 413. */
  status: 400 | 413;
  message: string;
  /** The field a 400 names, and the limit it states (the file's, without the multipart overhead). */
  field?: { name: string; maxLength: number };
}

/**
 * Request body limits, checked before a body is read (on `Content-Length`, or while a chunked
 * body streams in): documents 10 MB (API.md Limits), bulk CSV 10 MB, hosted KYC uploads 10 MB,
 * the hosted ownership form 64 KB, snapshot imports and fixture files 512 MB, anything else 1 MB. Paths are after the base-path
 * normalisation (any prefix before `/2025-10-13` is gone).
 */
export const BODY_LIMITS: readonly BodyLimit[] = [
  {
    name: 'documents',
    matches: (path) => /^\/2025-10-13\/documents(\/[^/]+)?$/.test(path),
    maxBytes: 10 * MB + MULTIPART_OVERHEAD,
    status: 400,
    message: 'The upload is larger than 10 MB; upload a file of 10 MB or less.',
    field: { name: 'file', maxLength: 10 * MB },
  },
  {
    name: 'bulk CSV',
    matches: (path) => path === '/2025-10-13/customers/bulk/csv',
    maxBytes: 10 * MB + MULTIPART_OVERHEAD,
    status: 413,
    message: 'The CSV upload is larger than 10 MB; split it into several imports.',
  },
  {
    name: 'hosted KYC',
    matches: (path) => path.startsWith('/hosted/kyc/'),
    maxBytes: 10 * MB + MULTIPART_OVERHEAD,
    status: 413,
    message: 'The upload is larger than 10 MB.',
  },
  {
    // A whole platform's state: a 10,000-customer snapshot is about 6 MB.
    name: 'snapshot import and fixtures',
    matches: (path) => path === '/_sandbox/snapshot' || path === '/_sandbox/fixtures',
    maxBytes: 512 * MB,
    status: 413,
    message: 'The snapshot or fixture file is larger than 512 MB.',
  },
  {
    name: 'hosted ownership',
    matches: (path) => path.startsWith('/hosted/ownership/'),
    maxBytes: 64 * 1024,
    status: 413,
    message: 'The form is larger than 64 KB.',
  },
];

/** Any other request: JSON bodies (the JSON reader has the same limit) and control-plane calls. */
export const DEFAULT_BODY_LIMIT = 1 * MB;

function tooLarge(limit: Pick<BodyLimit, 'maxBytes' | 'status' | 'message' | 'field'>): ApiError {
  if (limit.status === 400) {
    const field = limit.field ?? { name: '(body)', maxLength: limit.maxBytes };
    return new ApiError(400, ErrorCode.INVALID_INPUT, limit.message, {
      errors: [{ field: field.name, constraint: { maxLength: field.maxLength }, message: limit.message }],
    });
  }
  return new ApiError(413, 'PAYLOAD_TOO_LARGE', limit.message, { maxBytes: limit.maxBytes });
}

/** The limit of the body of a request to `path` (after the base-path normalisation). */
export function bodyLimitOf(path: string): Pick<BodyLimit, 'maxBytes' | 'status' | 'message' | 'field'> {
  return (
    BODY_LIMITS.find((l) => l.matches(path)) ?? {
      maxBytes: DEFAULT_BODY_LIMIT,
      status: path.startsWith('/2025-10-13/') ? 400 : 413,
      message: `The request body is larger than ${DEFAULT_BODY_LIMIT} bytes.`,
    }
  );
}

/**
 * A chunked body, counted as whoever reads it pulls it in: the stream fails with the limit's
 * error as soon as it passes `maxBytes`. Nothing is read here.
 */
function countedBody(source: ReadableStream<Uint8Array>, limit: Pick<BodyLimit, 'maxBytes' | 'status' | 'message' | 'field'>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      size += value.byteLength;
      if (size > limit.maxBytes) {
        controller.error(tooLarge(limit));
        reader.cancel().catch(() => undefined);
        return;
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * Bounds every request body without reading it: a declared `Content-Length` over the limit is
 * refused at once; a chunked body is counted as it is read and refused as soon as it passes
 * the limit, so memory stays flat whatever a client sends. Nothing here reads a body: a body is
 * read only by the operation's handler, after the request's credentials were checked, so an
 * unauthenticated upload is answered from its headers. Requests without a body cost one header
 * look-up.
 */
export function bodyLimits(pathOf: (path: string) => string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const length = requestHeader(c, 'content-length');
    const chunked = requestHeader(c, 'transfer-encoding') !== undefined;
    if (length === undefined && !chunked) return next();
    const limit = bodyLimitOf(pathOf(c.req.path));
    if (!chunked) {
      if (Number(length) > limit.maxBytes) throw tooLarge(limit);
      return next();
    }
    const body = c.req.raw.body;
    if (body) c.req.raw = new Request(c.req.raw, { body: countedBody(body, limit), duplex: 'half' } as RequestInit);
    return next();
  };
}
