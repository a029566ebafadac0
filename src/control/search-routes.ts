import { Hono } from 'hono';
import { ApiError, ErrorCode } from '../core/errors.js';
import { searchCustomers } from '../resources/customers/index.js';
import { listQuotes } from '../resources/quotes/index.js';
import type { SandboxContext } from '../store/context.js';
import type { AppEnv } from '../server/env.js';

const invalid = (field: string, constraint: Record<string, unknown>, message: string) =>
  new ApiError(400, ErrorCode.INVALID_INPUT, `${field}: ${message}`, { errors: [{ field, constraint, message }] });

/**
 * `GET /_sandbox/search/customers?q=&order=asc|desc&limit=&cursor=`: the platform's customers whose
 * name, email, platform customer id or UMA address starts with `q` (any case), or the customer of
 * an exact id; without `q`, every live customer by creation, oldest (`asc`, the default) or newest
 * first. Each row is the customer as `GET /customers/{id}` answers it, plus `matchedOn`.
 */
export function searchRoutes(ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/customers', (c) => {
    const q = c.req.query('q') ?? '';
    if (q.length > 200) throw invalid('q', { maxLength: 200 }, 'search for at most 200 characters');
    // A search's cursor is its own (the matched text and the id), checked by the search.
    const { order, limit, after: cursor } = pageQuery(c, (text) => text.length <= 2048);
    return c.json(searchCustomers(ctx, c.get('platform').id, { q, order, limit, cursor }));
  });
  return app;
}

/** `order` (asc, the default, or desc), `limit` (1-100, default 20) and `cursor` of a control-plane page. */
function pageQuery(c: { req: { query: (name: string) => string | undefined } }, cursorOk: (cursor: string) => boolean = (text) => /^[A-Za-z]+:[0-9a-f-]{36}$/.test(text)) {
  const order = c.req.query('order') ?? 'asc';
  if (order !== 'asc' && order !== 'desc') throw invalid('order', { enum: ['asc', 'desc'] }, 'order is asc (oldest first) or desc (newest first)');
  const limitText = c.req.query('limit') ?? '20';
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100) throw invalid('limit', { minimum: 1, maximum: 100 }, 'limit is a whole number from 1 to 100');
  const cursor = c.req.query('cursor');
  if (cursor !== undefined && !cursorOk(cursor)) throw invalid('cursor', { format: 'nextCursor' }, 'use the nextCursor of the previous page');
  return { order, limit, after: cursor } as const;
}

/**
 * Lists the contract has no operation for, which the terminal UI shows:
 * `GET /_sandbox/quotes?order=&limit=&cursor=` (each quote as `GET /quotes/{id}` answers it).
 */
export function listRoutes(ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/quotes', (c) => c.json(listQuotes(ctx, c.get('platform').id, pageQuery(c))));
  return app;
}
