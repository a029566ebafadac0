import type { AppContext } from './env.js';

const JSON_CONTENT = { 'Content-Type': 'application/json' } as const;

/**
 * A 200 answer whose body is JSON text made already (a list page joined from rows' stored wire
 * JSON): the same response `c.json` gives for the parsed value, without a parse and stringify.
 */
export function jsonText(c: AppContext, text: string): Response {
  return c.body(text, 200, JSON_CONTENT);
}
