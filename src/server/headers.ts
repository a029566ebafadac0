import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';

/** The node request and response behind a hono context, when @hono/node-server serves it. */
const nodeOf = (c: Context) => c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;

/**
 * A request header as `c.req.header(name)` answers it (every value of a repeated header, joined
 * with ", "), read from node's own parse of the request instead of a WHATWG `Headers` built for it
 * on first use (issue 26: a few µs of every request). Without node behind the context (an app's
 * in-process `fetch`), hono's answer.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const distinct = nodeOf(c)?.incoming?.headersDistinct;
  if (distinct === undefined) return c.req.header(name);
  return distinct[name.toLowerCase()]?.join(', ');
}

/**
 * Sets a header of the answer: on node's response before it is written (node merges it with the
 * headers the answer carries), instead of turning hono's response into a WHATWG `Response` to
 * change its headers; without node behind the context, on hono's response.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = nodeOf(c)?.outgoing;
  if (outgoing !== undefined && typeof outgoing.setHeader === 'function' && !outgoing.headersSent) outgoing.setHeader(name, value);
  else c.res.headers.set(name, value);
}
