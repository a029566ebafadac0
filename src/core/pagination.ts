import * as z from 'zod';
import { invalidInput } from './errors.js';

/** The contract's list query parameters: `limit` 1..100 (default 20) and an opaque `cursor`. */
export const paginationQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  // An empty cursor (`?cursor=`, which generated clients send for "no cursor") is the first page.
  cursor: z
    .string()
    .optional()
    .transform((cursor) => (cursor === '' ? undefined : cursor)),
};

/** A page in the contract's list shape. */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount: number;
}

/** What a repo needs to read one page: items strictly after `afterKey`, at most `take` of them. */
export interface PageRequest {
  afterKey: string | undefined;
  take: number;
}

/** Encodes a sort key as an opaque cursor. */
export function encodeCursor(key: string): string {
  return Buffer.from(JSON.stringify({ k: key }), 'utf8').toString('base64url');
}

/** The key a cursor made by `encodeCursor` holds, or undefined for any other string. */
function keyOfCursor(cursor: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && typeof (parsed as { k?: unknown }).k === 'string') return (parsed as { k: string }).k;
  } catch {
    // not one of ours
  }
  return undefined;
}

/** Whether a cursor is one `encodeCursor` made. */
export const isIssuedCursor = (cursor: string): boolean => keyOfCursor(cursor) !== undefined;

/** A cursor past every item (sort keys are ASCII ids): the page after it is empty. */
export const CURSOR_PAST_THE_END = encodeCursor('\uffff');

/** Decodes a cursor made by `encodeCursor`; anything else is `400 INVALID_INPUT` on `cursor`. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const key = keyOfCursor(cursor);
  if (key !== undefined) return key;
  throw invalidInput('The cursor is not one this sandbox issued.', [
    { field: 'cursor', message: 'Pass the nextCursor of a previous page unchanged.' },
  ]);
}

/**
 * Builds a page with keyset pagination. `fetch` returns items in a stable order strictly after
 * the given key, up to `take` (one more than the page, to learn `hasMore`); `keyOf` gives an
 * item's sort key (its id, which is time-ordered).
 */
export function paginate<Row, Out>(
  query: { limit: number; cursor?: string | undefined },
  fetch: (request: PageRequest) => Row[],
  count: () => number,
  keyOf: (row: Row) => string,
  present: (row: Row) => Out,
): Page<Out> {
  const afterKey = decodeCursor(query.cursor);
  const rows = fetch({ afterKey, take: query.limit + 1 });
  const hasMore = rows.length > query.limit;
  const pageRows = hasMore ? rows.slice(0, query.limit) : rows;
  const page: Page<Out> = { data: pageRows.map(present), hasMore, totalCount: count() };
  const last = pageRows[pageRows.length - 1];
  if (hasMore && last !== undefined) page.nextCursor = encodeCursor(keyOf(last));
  return page;
}

/**
 * `paginate` for items kept as their wire JSON text (a stored, always-current representation):
 * the page as JSON text, byte for byte what `JSON.stringify` of `paginate`'s page gives, built by
 * joining the items' text (no parse, present and stringify per item). `keyOf` reads an item's
 * sort key from its text (only the last item's, for `nextCursor`).
 */
export function paginateJson(
  query: { limit: number; cursor?: string | undefined },
  fetch: (request: PageRequest) => string[],
  count: () => number,
  keyOf: (json: string) => string = (json) => (JSON.parse(json) as { id: string }).id,
): string {
  const afterKey = decodeCursor(query.cursor);
  const items = fetch({ afterKey, take: query.limit + 1 });
  const hasMore = items.length > query.limit;
  if (hasMore) items.length = query.limit;
  const totalCount = count();
  const last = items[items.length - 1];
  const nextCursor = hasMore && last !== undefined ? `,"nextCursor":${JSON.stringify(encodeCursor(keyOf(last)))}` : '';
  return `{"data":[${items.join(',')}],"hasMore":${hasMore},"totalCount":${JSON.stringify(totalCount)}${nextCursor}}`;
}
