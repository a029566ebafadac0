import { ApiError, ErrorCode } from './errors.js';

/**
 * Sandbox warnings of the request being served: things the service accepts silently that a
 * developer most likely wants to know (an ignored unknown field or query parameter, a wallet
 * address whose checksum fails). The server sends them in the `Service-Sandbox-Warning` header
 * and the request log; they never change the answer.
 */
export const WARNING_HEADER = 'Service-Sandbox-Warning';

/**
 * Most unknown fields one request body may carry; past it the request is refused (a body of
 * mostly unknown fields is a mistake). Below the 500 values a JSON body may have at all.
 */
export const MAX_UNKNOWN_FIELDS = 200;

/** Warnings the header names one by one; the rest are counted. */
export const MAX_WARNINGS_SHOWN = 20;

/** Longest `Service-Sandbox-Warning` value, in bytes (every client reads a header this size). */
export const MAX_WARNING_HEADER_BYTES = 4_096;

/** Longest field name a warning quotes (longer ones are cut, with `...`). */
const MAX_FIELD_NAME = 100;

/** Where the synchronous call running now (`collectingWarnings`) collects its warnings, if any. */
let collecting: Set<string> | undefined;

/**
 * Runs `fn` collecting, each once and in order, the warnings it records while it runs
 * synchronously; a promise it returns is returned as it is, and what runs after its first
 * await is not collected. So the request's code enters it again wherever it may warn after an
 * await: the server where it checks a body or a query string (`jsonBody`, `queryOf`, the
 * operation gate), a route around a service call that warns (`inRequest`). A warning recorded
 * elsewhere is dropped, never given to another request: no other request runs during a
 * synchronous call. Not AsyncLocalStorage, which on Node 20 turns on promise hooks for the whole
 * process and cost about 5 % of the CPU of every request (issue 26).
 */
export function collectingWarnings<T>(warnings: Set<string> | undefined, fn: () => T): T {
  const outer = collecting;
  collecting = warnings;
  try {
    return fn();
  } finally {
    collecting = outer;
  }
}

/** Records a warning for the request being served (see `collectingWarnings`; outside one: dropped). Keep it ASCII, one line. */
export function sandboxWarning(message: string): void {
  collecting?.add(message);
}

/**
 * The `Service-Sandbox-Warning` value of a request's warnings: the first 20, then a count of the
 * rest, as one line of visible ASCII of at most 4 kB (a warning that would pass it is counted
 * with the rest instead).
 */
export function warningHeader(warnings: Iterable<string>): string {
  const shown: string[] = [];
  let bytes = 0;
  let total = 0;
  for (const warning of warnings) {
    total += 1;
    if (shown.length >= MAX_WARNINGS_SHOWN) continue;
    const line = warning.replace(/[^\x20-\x7e]/g, '?');
    // Room for "; " and the closing "; and N more warnings".
    if (bytes + line.length + 2 > MAX_WARNING_HEADER_BYTES - 64) continue;
    shown.push(line);
    bytes += line.length + 2;
  }
  const rest = total - shown.length;
  if (rest > 0) shown.push(`and ${rest} more warning${rest === 1 ? '' : 's'}`);
  return shown.join('; ');
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

const shortName = (path: string) => (path.length > MAX_FIELD_NAME ? `${path.slice(0, MAX_FIELD_NAME)}...` : path);

/**
 * Dot paths of the keys a request had and its validated form dropped: the unknown fields the
 * service ignores (as the sandbox does) and a developer most likely misspelt, in the order of
 * the request. Walks both values side by side, depth first without recursion, in time linear in
 * `input`; stops once it has `limit + 1` paths (enough to tell the request is past the limit).
 */
export function ignoredFields(input: unknown, output: unknown, prefix = '', limit = MAX_UNKNOWN_FIELDS): string[] {
  const out: string[] = [];
  // Containers being walked, outermost first: a frame per object or array, its input's keys (an
  // object's) and the next member to visit. No generator and no tuple per member: this runs on
  // every request with a body (about 2 µs of a customer create under load before, issue 26).
  const stack: Frame[] = [];
  const open = (from: unknown, to: unknown, at: string): void => {
    if (isPlainObject(from) && isPlainObject(to)) {
      stack.push({ from, to, keys: Object.keys(from), next: 0, at });
    } else if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
      stack.push({ from, to, keys: undefined, next: 0, at });
    }
  };
  open(input, output, prefix);
  while (stack.length > 0 && out.length <= limit) {
    const frame = stack[stack.length - 1]!;
    const index = frame.next;
    if (index >= (frame.keys ?? (frame.from as unknown[])).length) {
      stack.pop();
      continue;
    }
    frame.next = index + 1;
    if (frame.keys) {
      const key = frame.keys[index]!;
      const from = (frame.from as Record<string, unknown>)[key];
      const to = frame.to as Record<string, unknown>;
      if (!Object.hasOwn(to, key)) {
        if (from !== undefined) out.push(`${frame.at}${key}`);
      } else if (typeof from === 'object' && from !== null) {
        open(from, to[key], `${frame.at}${key}.`);
      }
    } else {
      const from = (frame.from as unknown[])[index];
      if (typeof from === 'object' && from !== null) open(from, (frame.to as unknown[])[index], `${frame.at}${index}.`);
    }
  }
  return out;
}

/** An object or array `ignoredFields` is walking: the request's and its validated form's, side by side. */
interface Frame {
  from: Record<string, unknown> | unknown[];
  to: Record<string, unknown> | unknown[];
  /** The request object's keys in order; undefined for an array. */
  keys: string[] | undefined;
  next: number;
  at: string;
}

/**
 * Warns about each field of `input` that its validated form `output` dropped (see
 * `ignoredFields`); more than `MAX_UNKNOWN_FIELDS` of them is `400 INVALID_INPUT` naming the
 * bound (a body of mostly unknown fields is a mistake, and naming each would cost the server).
 */
export function warnIgnoredFields(input: unknown, output: unknown, prefix = ''): void {
  const fields = ignoredFields(input, output, prefix);
  if (fields.length > MAX_UNKNOWN_FIELDS) throw tooManyUnknown();
  for (const field of fields) sandboxWarning(`Unknown field ${shortName(field)} was ignored`);
}

/**
 * Warns about each query parameter of `given` the operation does not define. Never refused: a
 * query string is bounded by the request line (Node reads at most 16 kB of headers), and the
 * header names the first 20 anyway.
 */
export function warnUnknownParameters(given: Iterable<string>, known: ReadonlySet<string>): void {
  for (const name of given) if (!known.has(name)) sandboxWarning(`Unknown query parameter ${shortName(name)} was ignored`);
}

function tooManyUnknown(): ApiError {
  return new ApiError(400, ErrorCode.INVALID_INPUT, `The request body has more than ${MAX_UNKNOWN_FIELDS} unknown fields; the sandbox ignores at most ${MAX_UNKNOWN_FIELDS}.`, {
    errors: [{ field: '(body)', constraint: { maxUnknownFields: MAX_UNKNOWN_FIELDS }, message: `Send at most ${MAX_UNKNOWN_FIELDS} fields the operation does not define.` }],
  });
}
