import fc from 'fast-check';

/** A JSON Schema object of the contract (OpenAPI 3.1 dialect). */
export type Schema = Record<string, any>;

/** How schemas are resolved and where the generator should be steered. */
export interface ArbitraryOptions {
  /** Resolves a local `$ref` (`#/components/...`). */
  resolve(ref: string): Schema;
  /**
   * An arbitrary to use instead of the schema's own for a named property or parameter (e.g. a
   * pool of real ids for `customerId`), or undefined to generate from the schema.
   */
  override?(name: string | undefined, schema: Schema): fc.Arbitrary<unknown> | undefined;
}

/** Marks an optional property left out. */
const ABSENT = Symbol('absent');

/** Deepest nesting generated; below it optional properties are left out. */
const MAX_DEPTH = 6;
/** Longest unbounded string generated (the generator aims at rules, not at sizes). */
const DEFAULT_MAX_LENGTH = 24;
/** Most array items generated. */
const DEFAULT_MAX_ITEMS = 3;

function resolved(schema: Schema, options: ArbitraryOptions): Schema {
  let current = schema;
  for (let i = 0; i < 16 && typeof current?.$ref === 'string'; i += 1) {
    const { $ref, ...rest } = current;
    current = { ...options.resolve($ref), ...rest };
  }
  return current;
}

/** Folds `allOf` members (and the schema's own keywords) into one object schema. */
function mergeAllOf(schema: Schema, options: ArbitraryOptions): Schema {
  const { allOf, ...own } = schema;
  const out: Schema = { ...own, properties: { ...(own.properties ?? {}) }, required: [...(own.required ?? [])] };
  for (const member of allOf as Schema[]) {
    let part = resolved(member, options);
    if (Array.isArray(part.allOf)) part = mergeAllOf(part, options);
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties') Object.assign(out.properties, value);
      else if (key === 'required') out.required.push(...(value as string[]));
      else if (!(key in out)) out[key] = value;
    }
  }
  if (Object.keys(out.properties).length === 0) delete out.properties;
  if (out.required.length === 0) delete out.required;
  return out;
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = Math.max(minLength, Math.min(schema.maxLength ?? DEFAULT_MAX_LENGTH, minLength + DEFAULT_MAX_LENGTH));
  const fits = (value: string) => value.length >= minLength && value.length <= (schema.maxLength ?? Infinity);
  switch (schema.format) {
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2035-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc.date({ min: new Date('1920-01-01T00:00:00Z'), max: new Date('2035-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress().filter(fits);
    case 'uri':
    case 'url':
      return fc.webUrl().filter(fits);
    case 'uuid':
      return fc.uuid();
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    let pattern: RegExp;
    try {
      pattern = new RegExp(schema.pattern, 'u');
    } catch {
      pattern = new RegExp(schema.pattern);
    }
    return fc.stringMatching(pattern).filter(fits);
  }
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }) },
  );
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  let min: number = schema.minimum ?? (integer ? -1_000 : -1_000);
  let max: number = schema.maximum ?? (integer ? 1_000_000_000 : 1_000_000);
  if (typeof schema.exclusiveMinimum === 'number') min = schema.exclusiveMinimum + (integer ? 1 : 1e-6);
  if (typeof schema.exclusiveMaximum === 'number') max = schema.exclusiveMaximum - (integer ? 1 : 1e-6);
  if (integer) {
    const lo = Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER);
    const hi = Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER);
    const arb = fc.integer({ min: lo, max: Math.max(lo, hi) });
    return typeof schema.multipleOf === 'number' ? arb.map((n) => n - (n % schema.multipleOf)).filter((n) => n >= lo && n <= hi) : arb;
  }
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/**
 * A fast-check arbitrary of values that validate against `schema`: `$ref`, `allOf`, `oneOf`,
 * `anyOf`, `const`, `enum`, type lists, objects (required properties always, optional ones
 * sometimes, no extra keys), arrays, strings (formats, patterns, lengths), numbers (bounds).
 * Sizes are kept small: the aim is to reach the rules, not to load the server.
 */
export function arbitraryOf(schema: Schema, options: ArbitraryOptions, name?: string, depth = 0): fc.Arbitrary<unknown> {
  const overridden = options.override?.(name, schema);
  if (overridden) return overridden;
  let s = resolved(schema, options);
  if (Array.isArray(s.allOf)) s = mergeAllOf(s, options);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const choices = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (Array.isArray(choices)) {
    const { oneOf: _o, anyOf: _a, ...rest } = s;
    // Keywords beside oneOf (e.g. shared properties) apply to every branch.
    const branches = choices.map((choice) => {
      const base = resolved(choice, options);
      const merged = Object.keys(rest).some((key) => key === 'properties' || key === 'required') ? mergeAllOf({ allOf: [rest, base] }, options) : base;
      return arbitraryOf(merged, options, name, depth + 1);
    });
    return fc.oneof(...branches);
  }
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => arbitraryOf({ ...s, type }, options, name, depth)));
  const type = types[0];
  const nullable = s.nullable === true;
  const withNull = (arb: fc.Arbitrary<unknown>) => (nullable ? fc.oneof(arb, fc.constant(null)) : arb);
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return withNull(fc.boolean());
    case 'integer':
      return withNull(numberArbitrary(s, true));
    case 'number':
      return withNull(numberArbitrary(s, false));
    case 'string':
      return withNull(stringArbitrary(s));
    case 'array': {
      const minLength: number = s.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(s.maxItems ?? DEFAULT_MAX_ITEMS, minLength + DEFAULT_MAX_ITEMS));
      const items = arbitraryOf(s.items ?? {}, options, name, depth + 1);
      const arb = s.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
      return withNull(arb);
    }
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set<string>(s.required ?? []);
      const keys = Object.keys(properties).filter((key) => required.has(key) || depth < MAX_DEPTH);
      if (keys.length === 0) {
        if (s.additionalProperties && typeof s.additionalProperties === 'object') {
          return withNull(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), arbitraryOf(s.additionalProperties, options, undefined, depth + 1), { maxKeys: 2 }));
        }
        return withNull(fc.constant({}));
      }
      // Optional properties appear about one time in four each, so that a request with many of
      // them still often has every one right and reaches the rules behind validation.
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const key of keys) {
        const property = resolved(properties[key]!, options);
        if (property.readOnly === true && !required.has(key)) continue;
        const arb = arbitraryOf(properties[key]!, options, key, depth + 1);
        model[key] = required.has(key) ? arb : fc.oneof({ weight: 3, arbitrary: fc.constant(ABSENT) }, { weight: 1, arbitrary: arb });
      }
      return withNull(fc.record(model).map((value) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== ABSENT))));
    }
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  }
}
