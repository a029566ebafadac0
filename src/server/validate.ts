import type { IncomingMessage } from 'node:http';
import * as z from 'zod';
import { BoundedCache, deepFreeze } from '../core/bounded-cache.js';
import { ApiError, ErrorCode, type FieldError } from '../core/errors.js';
import { CURSOR_PAST_THE_END, isIssuedCursor } from '../core/pagination.js';
import { collectingWarnings, warnIgnoredFields } from '../core/warnings.js';
import type { AppContext } from './env.js';
import { parseJsonBody } from './json-guard.js';

type Issue = z.core.$ZodIssue;

/** Maps a zod issue onto the contract's `FieldConstraint` vocabulary. */
function constraintOf(issue: Issue): Record<string, unknown> {
  switch (issue.code) {
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue ? { pattern: String(issue.pattern) } : { format: issue.format };
    case 'invalid_value':
      return { enum: issue.values.map((v) => String(v)) };
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array'
        ? { minLength: Number(issue.minimum) }
        : { minimum: Number(issue.minimum) };
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array'
        ? { maxLength: Number(issue.maximum) }
        : { maximum: Number(issue.maximum) };
    case 'invalid_type':
      return issue.input === undefined ? { required: true } : { type: issue.expected };
    case 'unrecognized_keys':
      return { additionalProperties: false };
    default:
      return { rule: issue.code };
  }
}

function messageOf(issue: Issue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'Required.';
  if (issue.code === 'invalid_type') return `Expected ${issue.expected}.`;
  return issue.message;
}

/** Most field errors one answer lists; the message counts the rest. */
export const MAX_FIELD_ERRORS = 50;

/** Turns issues into field errors with dot paths (the first `MAX_FIELD_ERRORS`). */
function fieldErrors(issues: readonly Issue[], prefix = ''): FieldError[] {
  return issues.slice(0, MAX_FIELD_ERRORS).map((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') path.push(issue.keys.slice(0, MAX_FIELD_ERRORS).join(','));
    const field = [prefix, ...path].filter(Boolean).join('.') || '(body)';
    return { field, constraint: constraintOf(issue), message: messageOf(issue) };
  });
}

/** A value checked against a schema: its parsed value, or how many issues it has and the first `MAX_FIELD_ERRORS` of them. */
type Checked<T> = { success: true; data: T } | { success: false; count: number; issues: Issue[] };

/** The parse context issues are finished in: each keeps its input (which tells a missing field from one of the wrong type). */
const REPORTING = { async: false, reportInput: true } as const;

/**
 * Checks `value` against `schema` in one pass. A failure finishes (message, input) only the
 * issues an answer lists: zod's own `safeParse` finishes every issue when its error is read, and
 * a hostile body has thousands (2,133 for PATCH /config with the widest arrays of empty objects
 * the JSON bounds allow: 15-80 ms a request, twice that when a second parse found each issue's
 * input). Schemas are synchronous and pure (no refinement or transform has an effect).
 */
function check<S extends z.ZodType>(schema: S, value: unknown): Checked<z.infer<S>> {
  const result = schema._zod.run({ value, issues: [] }, { async: false });
  if (result instanceof Promise) throw new Error('validate: schemas are synchronous');
  if (result.issues.length === 0) return { success: true, data: result.value as z.infer<S> };
  const config = z.core.config();
  return {
    success: false,
    count: result.issues.length,
    issues: result.issues.slice(0, MAX_FIELD_ERRORS).map((issue) => z.core.util.finalizeIssue(issue, REPORTING, config)),
  };
}

/** Validates `value` against `schema`, or throws `400 INVALID_INPUT` with its field errors (the first 50; the message counts them all). */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what = 'request', prefix = ''): z.infer<S> {
  const result = check(schema, value);
  if (result.success) return result.data;
  const message = result.count > MAX_FIELD_ERRORS ? `The ${what} is not valid: ${result.count} field errors, the first ${MAX_FIELD_ERRORS} listed.` : `The ${what} is not valid.`;
  throw new ApiError(400, ErrorCode.INVALID_INPUT, message, { errors: fieldErrors(result.issues, prefix) });
}

/** Largest JSON body accepted (documents go through multipart, which has its own limit). */
const MAX_JSON_BYTES = 1024 * 1024;

/**
 * The request body as text. On the node server a body of declared length is read straight from
 * the socket stream, which spares building a web Request and ReadableStream for every call; a
 * chunked one through the request, whose stream counts it against the path's limit (body-limits.ts).
 */
async function bodyText(c: AppContext): Promise<string> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || incoming.readableEnded || typeof incoming.on !== 'function' || incoming.headers['transfer-encoding'] !== undefined) return c.req.text();
  return readIncoming(incoming);
}

/**
 * A request body read from node's stream by its events: an async iterator over the stream (its
 * promises, its end-of-stream watcher, its listeners) cost a small request about 6 µs more of
 * CPU at 10 connections (issue 26). At most MAX_JSON_BYTES: past them the rest is read and
 * dropped, and the request is refused.
 */
function readIncoming(incoming: IncomingMessage): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_JSON_BYTES) {
        chunks.push(chunk);
        return;
      }
      stop();
      incoming.resume();
      reject(new ApiError(400, ErrorCode.INVALID_INPUT, `The request body is larger than ${MAX_JSON_BYTES} bytes.`, {
        errors: [{ field: '(body)', constraint: { maxLength: MAX_JSON_BYTES }, message: 'Send a smaller JSON document.' }],
      }));
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    // Closed before its end: the client went away mid-body.
    const onClose = () => {
      stop();
      reject(new Error('the request was closed before its body ended'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/**
 * Reads and validates the JSON body; malformed JSON is `400 INVALID_INPUT` too. With
 * `optional`, an empty body validates as `{}` (for operations whose body is not required).
 * The body is read only after the request's credentials were checked (the route's
 * authentication runs first), and is parsed within the sandbox's JSON limits (`json-guard.ts`:
 * depth, values, number literals, duplicate keys) before anything walks it.
 */
export async function jsonBody<S extends z.ZodType>(c: AppContext, schema: S, options: { optional?: boolean } = {}): Promise<z.infer<S>> {
  const text = await bodyText(c);
  return inRequest(c, () => checkJson(parseJsonBody(text), schema, options));
}

/**
 * Runs `fn` (synchronous: a service call, a check) with the sandbox warnings it records going to
 * request `c`'s `Service-Sandbox-Warning` (see `collectingWarnings`): for a route whose service
 * may warn, around the call after the body was read.
 */
export function inRequest<T>(c: AppContext, fn: () => T): T {
  return collectingWarnings(c.get('warnings'), fn);
}

/**
 * Validates a parsed JSON body (see `jsonBody`): strings, then the schema, then a warning for
 * each unknown field (more than `MAX_UNKNOWN_FIELDS` is refused).
 */
export function checkJson<S extends z.ZodType>(value: unknown, schema: S, options: { optional?: boolean } = {}): z.infer<S> {
  if (value === undefined && options.optional) value = {};
  if (value === undefined) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, 'The request body is required.', {
      errors: [{ field: '(body)', constraint: { required: true }, message: 'Send a JSON object.' }],
    });
  }
  checkStrings(value);
  const parsed = parseWith(schema, value, 'request body');
  warnIgnoredFields(value, parsed);
  return parsed;
}

/** A JSON body that is optional: `undefined` when the request has none (or a blank one). */
export async function optionalJson(c: AppContext): Promise<unknown> {
  return parseJsonBody(await bodyText(c));
}


/**
 * Validates the query string (repeated keys become arrays). On an operation whose contract
 * declares no `400`, a parameter whose value is not valid is ignored instead (as if absent,
 * so its default applies), with a `Service-Sandbox-Warning` naming it and why: the answer
 * stays one the contract declares.
 */
export function queryOf<S extends z.ZodType>(c: AppContext, schema: S): z.infer<S> {
  const all = c.req.queries();
  const flat: Record<string, string | string[]> = {};
  for (const [key, values] of Object.entries(all)) flat[key] = values.length === 1 ? values[0]! : values;
  const op = c.get('operation');
  if (!op || op.statuses.includes(400)) return parseWith(schema, flat, 'query string');
  const result = check(schema, flat);
  let data: z.infer<S>;
  if (result.success) {
    data = result.data;
  } else {
    for (const error of fieldErrors(result.issues)) {
      const name = error.field.split('.')[0]!;
      if (!Object.hasOwn(flat, name)) continue;
      c.get('warnings')?.add(`Query parameter ${name} was ignored: ${error.message} (${op.operationId} declares no 400)`);
      delete flat[name];
    }
    data = parseWith(schema, flat, 'query string');
  }
  // A cursor this sandbox did not issue points past every item: an empty page, not a 400 (an
  // operation that declares a 404 answers that itself, as GET /stablecoins/{id}/operations does).
  const cursor = (data as { cursor?: unknown } | null)?.cursor;
  if (typeof cursor === 'string' && cursor !== '' && !op.statuses.includes(404) && !isIssuedCursor(cursor)) {
    c.get('warnings')?.add(`Query parameter cursor is not one this sandbox issued: the page after it is empty (${op.operationId} declares no 400)`);
    (data as { cursor?: string }).cursor = CURSOR_PAST_THE_END;
  }
  return data;
}

/** Query strings remembered per schema by `listQueryOf`, the latest 256 of each. */
const queryMemos = new WeakMap<z.ZodType, BoundedCache<unknown>>();

/**
 * `queryOf` for a list's query, whose validated value is a pure function of the query string (no
 * clock, no randomness, no state): a query string seen lately (a client polling a list, or
 * asking for the same filter again) reuses its validated value, frozen, instead of parsing and
 * validating again, which costs a list request more than reading its page. Only values are
 * remembered, never answers: the page is read afresh every time. An invalid query is validated
 * (and refused) every time.
 */
export function listQueryOf<S extends z.ZodType>(c: AppContext, schema: S): z.infer<S> {
  // Where an invalid parameter is ignored with a warning (see queryOf), every request must warn.
  const op = c.get('operation');
  if (op && !op.statuses.includes(400)) return queryOf(c, schema);
  const url = c.req.url;
  const start = url.indexOf('?');
  const hash = url.indexOf('#');
  const key = start < 0 ? '' : url.slice(start + 1, hash < 0 ? undefined : hash);
  let memo = queryMemos.get(schema);
  if (!memo) queryMemos.set(schema, (memo = new BoundedCache(256)));
  return memo.get(key, () => deepFreeze(queryOf(c, schema))) as z.infer<S>;
}

/**
 * Longest string accepted in any request field the contract gives no `maxLength` (a sandbox
 * maximum, documented in the README); fields whose contract schema has a limit keep theirs.
 */
export const MAX_STRING_LENGTH = 32_768;

/**
 * Fields that carry a person's or company's name or an address line: the same maximum
 * wherever they appear (the contract's customer and address schemas allow 255), so a
 * beneficiary's `fullName` is bounded like a customer's.
 */
export const NAME_FIELD_MAX_LENGTH = 255;
const nameFields = new Set([
  'fullName', 'legalName', 'firstName', 'middleName', 'lastName', 'doingBusinessAs', 'bankName', 'line1', 'line2', 'city', 'state',
]);

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Most field errors listed for one request's strings. */
const MAX_STRING_ERRORS = 25;

/**
 * Every string of a request body (at any depth; query strings are filters, never stored, and
 * keep the contract's own rules): no NUL character, no unpaired UTF-16 surrogate
 * (neither can be stored or sent on faithfully), and within the sandbox's length maximums.
 * Walks the value without recursion (a parsed body is at most 64 levels deep anyway) and stops
 * after 25 errors. Throws `400 INVALID_INPUT` naming each field.
 */
export function checkStrings(value: unknown, what = 'request body'): void {
  const errors: FieldError[] = [];
  // A field's path is made only when it is named in an error: each pending value keeps its
  // parent's entry and its own key or index (every path made up front cost a customer create
  // about a microsecond under load, issue 26).
  const pending: Pending[] = [{ node: value, parent: undefined, at: undefined, key: undefined }];
  while (pending.length > 0 && errors.length < MAX_STRING_ERRORS) {
    const entry = pending.pop()!;
    const node = entry.node;
    if (typeof node === 'string') {
      if (node.includes('\u0000')) {
        errors.push({ field: pathOf(entry), constraint: { pattern: '^[^\\u0000]*$' }, message: 'Must not contain NUL characters.' });
      } else if (LONE_SURROGATE.test(node)) {
        errors.push({ field: pathOf(entry), constraint: { format: 'utf-16' }, message: 'Must not contain unpaired UTF-16 surrogates.' });
      } else {
        const max = entry.key !== undefined && nameFields.has(entry.key) ? NAME_FIELD_MAX_LENGTH : MAX_STRING_LENGTH;
        if (node.length > max) errors.push({ field: pathOf(entry), constraint: { maxLength: max }, message: `At most ${max} characters.` });
      }
    } else if (Array.isArray(node)) {
      // Pushed last first, so fields are visited (and named) in the request's order.
      for (let i = node.length - 1; i >= 0; i -= 1) pending.push({ node: node[i], parent: entry, at: i, key: entry.key });
    } else if (node !== null && typeof node === 'object') {
      const keys = Object.keys(node);
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const k = keys[i]!;
        pending.push({ node: (node as Record<string, unknown>)[k], parent: entry, at: k, key: k });
      }
    }
  }
  if (errors.length) throw new ApiError(400, ErrorCode.INVALID_INPUT, `The ${what} is not valid.`, { errors });
}

/** A value `checkStrings` has yet to look at: its container's entry, its key or index there, and the nearest object key above it. */
interface Pending {
  node: unknown;
  parent: Pending | undefined;
  at: string | number | undefined;
  key: string | undefined;
}

/** The dot path of a pending value (`(body)` for the body itself). */
function pathOf(entry: Pending): string {
  const parts: (string | number)[] = [];
  for (let at: Pending | undefined = entry; at?.at !== undefined; at = at.parent) parts.push(at.at);
  return parts.length ? parts.reverse().join('.') : '(body)';
}

/**
 * An `explode` array query parameter: the repeated form (`?x=EUR&x=MXN`) and the
 * comma-separated form a generated client sends (`?x=EUR,MXN`), or both mixed, become one
 * array whose items `item` validates (field errors name `x.0`, `x.1`, ...).
 */
export function queryArray<S extends z.ZodType>(item: S) {
  return z.preprocess(
    (value) => {
      if (value === undefined) return undefined;
      const values = Array.isArray(value) ? value : [value];
      return values.flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
    },
    z.array(item),
  );
}
