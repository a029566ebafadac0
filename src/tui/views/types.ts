import type { Change, SandboxClient } from '../client.js';

/** One column of a resource list. `width: 0` takes the room that is left. */
export interface Column<Row> {
  header: string;
  width: number;
  value: (row: Row) => string;
  color?: (row: Row) => string | undefined;
  align?: 'left' | 'right';
}

/** One page of a list, as the contract's cursor pagination answers it. */
export interface Page<Row> {
  rows: Row[];
  nextCursor?: string | undefined;
  total?: number | undefined;
}

/** A titled block of the detail pane: label/value pairs or plain lines. */
export interface DetailSection {
  title: string;
  lines: string[];
}

/**
 * Something a key does to the selected row. With `prompt` the user types a value first; with
 * `confirm` they answer y. `run` calls the sandbox (the same endpoints the CLI uses) and returns
 * the message for the status line.
 */
export interface ViewAction<Row> {
  key: string;
  label: string;
  prompt?: (row: Row) => string;
  confirm?: (row: Row) => string;
  /** Whether the action applies to this row (default: always). */
  applies?: (row: Row) => boolean;
  run: (client: SandboxClient, row: Row, input: string | undefined) => Promise<string>;
}

/**
 * A resource view: a windowed list with columns, a detail pane and actions. A new resource
 * (cards, wallet sessions, agent approvals, ...) is one file exporting one of these and one
 * line in ./index.ts.
 */
export interface ResourceView<Row = Record<string, unknown>> {
  id: string;
  title: string;
  columns: Column<Row>[];
  /** Loads the page after `cursor` (undefined: the first page). */
  load: (client: SandboxClient, cursor: string | undefined, limit: number) => Promise<Page<Row>>;
  key: (row: Row) => string;
  detail?: (client: SandboxClient, row: Row) => Promise<DetailSection[]>;
  actions?: ViewAction<Row>[];
  /** Whether a change may touch this view (default: every change of the platform does). */
  refreshOn?: (change: Change) => boolean;
}

/** A list page from a contract list operation (`{data, nextCursor, totalCount}`). */
export async function contractPage<Row>(client: SandboxClient, path: string, cursor: string | undefined, limit: number): Promise<Page<Row>> {
  const join = path.includes('?') ? '&' : '?';
  const page = await client.api<{ data: Row[]; nextCursor?: string; hasMore?: boolean; totalCount?: number }>(
    'GET',
    `${path}${join}limit=${Math.min(limit, 100)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
  );
  return { rows: page.data, nextCursor: page.hasMore === false ? undefined : page.nextCursor, total: page.totalCount };
}

/** Label/value lines of an object's scalar fields (nested objects as compact JSON). */
export function fieldsOf(value: Record<string, unknown>, skip: string[] = []): string[] {
  return Object.entries(value)
    .filter(([key, v]) => !skip.includes(key) && v !== undefined && v !== null)
    .map(([key, v]) => `${key.padEnd(24)} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
}

/** Shows a control-plane/contract call's failure as the status message instead of throwing. */
export const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A view over a contract list operation with cursor pagination: the common case of a new
 * resource (cards, agents, ...) in a few lines, e.g.
 * `contractListView({ id: 'cards', title: 'Cards', path: '/cards', columns: [...] })`.
 */
export function contractListView<Row extends { id: string }>(options: {
  id: string;
  title: string;
  /** The list operation's path, e.g. `/cards`; `GET {path}/{id}` gives the detail. */
  path: string;
  columns: Column<Row>[];
  actions?: ViewAction<Row>[];
}): ResourceView<Row> {
  return {
    id: options.id,
    title: options.title,
    columns: options.columns,
    load: (client, cursor, limit) => contractPage<Row>(client, options.path, cursor, limit),
    key: (row) => row.id,
    detail: async (client, row) => [
      { title: options.title, lines: fieldsOf(await client.api<Record<string, unknown>>('GET', `${options.path}/${encodeURIComponent(row.id)}`)) },
    ],
    actions: options.actions,
  };
}
