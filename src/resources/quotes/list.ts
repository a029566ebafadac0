import type { SandboxContext } from '../../store/context.js';
import { getQuote } from './service.js';

/**
 * A platform's quotes by creation (ids are time-ordered), oldest or newest first, a page at a
 * time over the `(platform_id, id)` index: the control plane's `GET /_sandbox/quotes`, which the
 * terminal UI lists (the contract has no quote list). Each is the quote as `GET /quotes/{id}`
 * answers it.
 */
const statements = new WeakMap<SandboxContext, Record<string, { all: (...args: unknown[]) => unknown[] }>>();
function stmts(ctx: SandboxContext) {
  let s = statements.get(ctx);
  if (!s) {
    const page = (dir: 'ASC' | 'DESC', after: boolean) =>
      ctx.db.prepare(`SELECT id FROM quotes WHERE platform_id = ? ${after ? `AND id ${dir === 'ASC' ? '>' : '<'} ?` : ''} ORDER BY id ${dir} LIMIT ?`);
    s = { asc: page('ASC', false), desc: page('DESC', false), ascAfter: page('ASC', true), descAfter: page('DESC', true) };
    statements.set(ctx, s);
  }
  return s;
}
const countStatements = new WeakMap<SandboxContext, { get: (...args: unknown[]) => unknown }>();

export function listQuotes(ctx: SandboxContext, platformId: string, query: { order: 'asc' | 'desc'; limit: number; after?: string | undefined }) {
  const s = stmts(ctx);
  const rows = (query.after === undefined ? s[query.order]!.all(platformId, query.limit + 1) : s[`${query.order}After`]!.all(platformId, query.after, query.limit + 1)) as { id: string }[];
  const page = rows.slice(0, query.limit);
  let count = countStatements.get(ctx);
  if (!count) countStatements.set(ctx, (count = ctx.db.prepare<unknown[]>('SELECT count(*) AS n FROM (SELECT 1 FROM quotes WHERE platform_id = ? LIMIT 10001)')));
  const total = query.after === undefined ? (count.get(platformId) as { n: number }).n : undefined;
  return {
    data: page.map((r) => getQuote(ctx, platformId, r.id)),
    hasMore: rows.length > query.limit,
    ...(rows.length > query.limit ? { nextCursor: page.at(-1)!.id } : {}),
    ...(total === undefined ? {} : { totalCount: Math.min(total, 10_000), ...(total > 10_000 ? { totalCountCapped: true } : {}) }),
  };
}
