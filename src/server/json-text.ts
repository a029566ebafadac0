import type { AppContext } from './env.js';

/**
 * A 200 answer whose body is JSON text made already (a list page joined from rows' stored wire
 * JSON): the same response `c.json` gives for the parsed value, without a parse and stringify.
 * The headers are a new object each time: @hono/node-server writes the answer's Content-Length
 * into the object it is given, so a shared one would carry one answer's length into the next.
 */
export function jsonText(c: AppContext, text: string): Response {
  return c.body(text, 200, { 'Content-Type': 'application/json' });
}
