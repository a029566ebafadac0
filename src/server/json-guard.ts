import { ApiError, ErrorCode, type FieldError } from '../core/errors.js';

/** Deepest nesting of arrays and objects a JSON body may have (a sandbox limit; the contract's deepest request is 6 levels). */
export const MAX_JSON_DEPTH = 64;

/**
 * Most values (objects, arrays, strings, numbers, booleans, nulls; the body itself counts) in a
 * JSON body. A whole `PATCH /config` has about 200; a customer, a quote or a card far fewer.
 * The bound keeps validation well below the 50 ms any one request may hold the server: zod
 * spends about a microsecond per field error (plus the garbage), and an empty object where an
 * item is due makes one per required field. 990 empty `supportedCurrencies` items (4,950
 * errors) took 5 ms at the median and 12-18 ms at the 90th percentile here, up to 50 ms on the
 * loaded machine; the 500 allowed make half as many.
 */
export const MAX_JSON_VALUES = 500;

/** Longest number literal: a double has 17 significant digits, so nothing longer means more. */
export const MAX_NUMBER_LENGTH = 64;

/** The limits of one JSON document. */
export interface JsonLimits {
  maxDepth: number;
  maxValues: number;
  maxNumberLength: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: MAX_JSON_DEPTH, maxValues: MAX_JSON_VALUES, maxNumberLength: MAX_NUMBER_LENGTH };

const notJson = (): ApiError =>
  new ApiError(400, ErrorCode.INVALID_INPUT, 'The request body is not valid JSON.', {
    errors: [{ field: '(body)', constraint: { format: 'json' }, message: 'Send a JSON document with Content-Type: application/json.' }],
  });

const refused = (message: string, error: FieldError): ApiError => new ApiError(400, ErrorCode.INVALID_INPUT, message, { errors: [error] });

/** An open array or object while scanning: its keys so far (objects) and where it sits. */
interface Frame {
  keys: Set<string> | undefined;
  /** The member being read: the key of an object, the index of an array. */
  at: string | number;
}

const enum Expect {
  /** A value (the document, an array item, an object member's value). */
  Value,
  /** A value or `]` (just after `[`). */
  ValueOrClose,
  /** A key or `}` (just after `{`). */
  KeyOrClose,
  /** A key (after a `,` in an object). */
  Key,
  /** `:` after a key. */
  Colon,
  /** `,` or the container's close. */
  CommaOrClose,
  /** Nothing but whitespace (after the document). */
  End,
}

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
const isNumberChar = (code: number) => (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x2b || code === 0x2e || code === 0x65 || code === 0x45;

const pathOf = (stack: readonly Frame[], last?: string): string => {
  const parts = stack.map((frame) => String(frame.at));
  if (last !== undefined) parts.push(last);
  return parts.join('.') || '(body)';
};

/**
 * Checks the shape of a JSON text in one pass, without building anything, before `JSON.parse`
 * builds it: nesting at most `maxDepth` deep, at most `maxValues` values, no number literal
 * longer than `maxNumberLength` or beyond a double's range, and no key twice in one object
 * (`JSON.parse` would keep the last silently; the service's parser may keep another). Iterative
 * and linear in the text, and it stops at the first value past a bound, so a hostile body
 * costs no more than reading it. Throws `400 INVALID_INPUT` naming the bound, or the field.
 */
export function scanJson(text: string, limits: JsonLimits = DEFAULT_JSON_LIMITS): void {
  // One loop with plain locals: the helpers are module functions, not closures over the scan's
  // state (a closure that writes `expect` or `values` puts them in a context object every step
  // of the loop reads; issue 26).
  const stack: Frame[] = [];
  const n = text.length;
  let values = 0;
  let expect = Expect.Value as Expect;
  let i = 0;
  while (i < n) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) {
      i += 1;
      continue;
    }
    switch (expect) {
      case Expect.End:
        throw notJson();
      case Expect.Colon:
        if (code !== 0x3a) throw notJson();
        expect = Expect.Value;
        i += 1;
        continue;
      case Expect.CommaOrClose: {
        const frame = stack[stack.length - 1]!;
        if (code === 0x2c) {
          if (frame.keys) {
            expect = Expect.Key;
          } else {
            frame.at = (frame.at as number) + 1;
            expect = Expect.Value;
          }
        } else if ((code === 0x7d && frame.keys) || (code === 0x5d && !frame.keys)) {
          stack.pop();
          expect = afterValue(stack);
        } else {
          throw notJson();
        }
        i += 1;
        continue;
      }
      case Expect.KeyOrClose:
      case Expect.Key: {
        if (code === 0x7d && expect === Expect.KeyOrClose) {
          stack.pop();
          expect = afterValue(stack);
          i += 1;
          continue;
        }
        if (code !== 0x22) throw notJson();
        const end = stringEnd(text, i);
        let key = text.slice(i + 1, end);
        if (key.includes('\\')) {
          try {
            key = JSON.parse(text.slice(i, end + 1)) as string;
          } catch {
            throw notJson();
          }
        }
        const frame = stack[stack.length - 1]!;
        if (frame.keys!.has(key)) {
          throw refused(`The request body names ${pathOf(stack.slice(0, -1), key)} twice in one object.`, {
            field: pathOf(stack.slice(0, -1), key),
            constraint: { rule: 'unique-keys' },
            message: 'Each key may appear once in an object.',
          });
        }
        frame.keys!.add(key);
        frame.at = key;
        expect = Expect.Colon;
        i = end + 1;
        continue;
      }
      case Expect.ValueOrClose:
      case Expect.Value: {
        if (code === 0x5d && expect === Expect.ValueOrClose) {
          stack.pop();
          expect = afterValue(stack);
          i += 1;
          continue;
        }
        values += 1;
        if (values > limits.maxValues) throw tooManyValues(stack, limits.maxValues);
        if (code === 0x7b || code === 0x5b) {
          if (stack.length >= limits.maxDepth) {
            throw refused(`The request body is nested more than ${limits.maxDepth} levels deep; the sandbox reads at most ${limits.maxDepth}.`, {
              field: pathOf(stack),
              constraint: { maxDepth: limits.maxDepth },
              message: `Objects and arrays nest at most ${limits.maxDepth} levels deep.`,
            });
          }
          const object = code === 0x7b;
          stack.push({ keys: object ? new Set() : undefined, at: object ? '' : 0 });
          expect = object ? Expect.KeyOrClose : Expect.ValueOrClose;
          i += 1;
          continue;
        }
        if (code === 0x22) {
          i = stringEnd(text, i) + 1;
          expect = afterValue(stack);
          continue;
        }
        if (isNumberChar(code)) {
          let end = i + 1;
          while (end < n && isNumberChar(text.charCodeAt(end))) end += 1;
          const literal = text.slice(i, end);
          if (literal.length > limits.maxNumberLength || !Number.isFinite(Number(literal))) {
            const field = pathOf(stack);
            throw refused(`The number at ${field} is ${literal.length > limits.maxNumberLength ? `longer than ${limits.maxNumberLength} characters` : 'beyond the range of a number'}.`, {
              field,
              constraint: { maxLength: limits.maxNumberLength },
              message: `Numbers have at most ${limits.maxNumberLength} characters and stay within the range of a double.`,
            });
          }
          i = end;
          expect = afterValue(stack);
          continue;
        }
        const literal = code === 0x74 ? 'true' : code === 0x66 ? 'false' : code === 0x6e ? 'null' : undefined;
        if (!literal || !text.startsWith(literal, i)) throw notJson();
        i += literal.length;
        expect = afterValue(stack);
        continue;
      }
    }
  }
  if (expect !== Expect.End) throw notJson();
}

/** After a complete value: the enclosing container expects `,` or its close; the document, its end. */
const afterValue = (stack: readonly Frame[]): Expect => (stack.length === 0 ? Expect.End : Expect.CommaOrClose);

/** Where the string of `text` starting at `start` (a `"`) ends: the index of its closing quote. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw notJson();
    let slashes = 0;
    for (let k = quote - 1; k > start && text.charCodeAt(k) === 0x5c; k -= 1) slashes += 1;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

function tooManyValues(stack: readonly Frame[], maxValues: number): ApiError {
  return refused(`The request body has more than ${maxValues} values; the sandbox reads at most ${maxValues} (objects, arrays, strings, numbers, booleans and nulls) in one body.`, {
    field: pathOf(stack),
    constraint: { maxItems: maxValues },
    message: `At most ${maxValues} values in one request body.`,
  });
}

/**
 * Parses a JSON request body within `limits` (see `scanJson`): `undefined` for an empty or
 * blank text, else the value. Malformed JSON and bodies past a limit are `400 INVALID_INPUT`.
 */
export function parseJsonBody(text: string, limits: JsonLimits = DEFAULT_JSON_LIMITS): unknown {
  if (text.trim() === '') return undefined;
  scanJson(text, limits);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw notJson();
  }
}
