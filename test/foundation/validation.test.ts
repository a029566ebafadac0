import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { checkStrings, NAME_FIELD_MAX_LENGTH, parseWith } from '../../src/server/validate.js';

// parseWith validates in one pass and finishes (message, input) only the issues it lists
// (src/server/validate.ts): the field errors must still tell a missing field from a wrong one.
const schema = z.object({ name: z.string().min(2), age: z.number().int().optional(), tags: z.array(z.enum(['a', 'b'])).optional() });

const errorsOf = (value: unknown) => {
  try {
    parseWith(schema, value, 'request body', 'body');
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).toBody();
  }
  throw new Error('expected a 400');
};

describe('parseWith', () => {
  it('returns the parsed value of a valid body', () => {
    expect(parseWith(schema, { name: 'Al', tags: ['a'] })).toEqual({ name: 'Al', tags: ['a'] });
  });

  it('names a missing field as required and a wrong one by the type expected', () => {
    const body = errorsOf({ age: 'old', tags: ['c'] });
    expect(body).toMatchObject({ status: 400, code: 'INVALID_INPUT', message: 'The request body is not valid.' });
    expect(body.details).toEqual({
      errors: [
        { field: 'body.name', constraint: { required: true }, message: 'Required.' },
        { field: 'body.age', constraint: { type: 'number' }, message: 'Expected number.' },
        { field: 'body.tags.0', constraint: { enum: ['a', 'b'] }, message: expect.any(String) },
      ],
    });
  });

  it('tells a null field from a missing one', () => {
    expect(errorsOf({ name: null }).details).toEqual({ errors: [{ field: 'body.name', constraint: { type: 'string' }, message: 'Expected string.' }] });
    expect(errorsOf({ name: 'A' }).details).toEqual({ errors: [{ field: 'body.name', constraint: { minLength: 2 }, message: expect.any(String) }] });
  });

  it('counts every issue of a hostile body but makes a message only for the 50 it lists', () => {
    let messages = 0;
    const item = z.object({ code: z.string({ error: () => { messages += 1; return 'Give a code.'; } }), amount: z.number() });
    const wide = z.object({ items: z.array(item) });
    let body: ReturnType<ApiError['toBody']> | undefined;
    try {
      parseWith(wide, { items: Array.from({ length: 400 }, () => ({ code: 7 })) });
    } catch (error) {
      body = (error as ApiError).toBody();
    }
    expect(body?.message).toBe('The request is not valid: 800 field errors, the first 50 listed.');
    const errors = (body?.details as { errors: { field: string; constraint: unknown; message: string }[] }).errors;
    expect(errors).toHaveLength(50);
    expect(errors.slice(0, 2)).toEqual([
      { field: 'items.0.code', constraint: { type: 'string' }, message: 'Expected string.' },
      { field: 'items.0.amount', constraint: { required: true }, message: 'Required.' },
    ]);
    // zod finishes every issue (its message among them) when it builds an error: the code
    // field's message was made for all 400 of its issues; here only for the 25 listed.
    expect(messages).toBe(25);
  });
});

// checkStrings makes a field's path only when it names it in an error: the paths must be the
// request's dot paths, in the request's order, whatever the nesting.
describe('checkStrings', () => {
  const fieldsOf = (value: unknown): string[] => {
    try {
      checkStrings(value);
    } catch (error) {
      return ((error as ApiError).toBody().details as { errors: { field: string }[] }).errors.map((e) => e.field);
    }
    return [];
  };

  it('names nested fields and array items by dot path, in order', () => {
    const long = 'x'.repeat(NAME_FIELD_MAX_LENGTH + 1);
    expect(fieldsOf({ a: [{ b: 'ok' }, { b: 'x\u0000' }], fullName: long, c: { d: ['\ud800'] } })).toEqual(['a.1.b', 'fullName', 'c.d.0']);
    expect(fieldsOf(['fine', 'nul\u0000'])).toEqual(['1']);
    expect(fieldsOf('\u0000')).toEqual(['(body)']);
    expect(fieldsOf({ names: { fullName: 'ok', line1: long }, other: long })).toEqual(['names.line1']);
  });
});
