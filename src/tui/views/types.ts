import type { Change, SandboxClient } from '../client.js';
import { formatMoney, isMoney, timeOrText, type Money } from '../format.js';

/** One column of a resource list. `width: 0` takes the room that is left. */
export interface Column<Row> {
  header: string;
  width: number;
  /** The cell's text; `client` lets a column show a name another record holds (an owner's). */
  value: (row: Row, client: SandboxClient) => string;
  color?: (row: Row) => string | undefined;
  align?: 'left' | 'right';
}

/** One page of a list, as the contract's cursor pagination answers it. */
export interface Page<Row> {
  rows: Row[];
  nextCursor?: string | undefined;
  total?: number | undefined;
  /** The sandbox stopped counting at `total`: there are more. */
  totalCapped?: boolean | undefined;
}

/** A list's order: `asc` oldest first, `desc` newest first. */
export type Order = 'asc' | 'desc';

/** What a view's list is asked for: a page after `cursor` in `order`, narrowed by the view's `filter` text. */
export interface LoadRequest {
  cursor: string | undefined;
  limit: number;
  order: Order;
  filter: string;
}

/**
 * A titled block of the detail pane: label/value pairs or plain lines. A line naming a resource
 * id (`Customer:…`, `Transaction:…`) opens that record on Enter.
 */
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
  /** The prompt's text to start from (for example the first descriptor suffix offered). */
  suggest?: (row: Row) => string;
  /** Whether the action applies to this row (default: always). */
  applies?: (row: Row) => boolean;
  run: (client: SandboxClient, row: Row, input: string | undefined) => Promise<string>;
}

/** One field of a form. */
export interface FormField {
  name: string;
  label: string;
  /** The value it starts with; a function gets the row or record the form was opened on. */
  initial?: string | ((context: any) => string);
  /** A choice field: Space or arrows cycle through these. */
  choices?: string[];
  /** Shown beside the field while the sandbox has nothing to say about it. */
  hint?: string;
  placeholder?: string;
}

/**
 * A form the view opens with `key`: its fields, sent to the sandbox by `submit` (the same contract
 * call a client makes). A 400's `details.errors` are shown beside the fields they name; `open`
 * names a record to open afterwards.
 */
export interface FormSpec {
  key: string;
  title: string;
  fields: FormField[];
  /** The row (list) or record (detail) the form was opened on. */
  context?: any;
  submit: (client: SandboxClient, values: Record<string, string>, context: any) => Promise<{ message: string; open?: string }>;
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
  /** Loads the page after `cursor` (undefined: the first page) in `order`, narrowed by `filter`. */
  load: (client: SandboxClient, request: LoadRequest) => Promise<Page<Row>>;
  /** Both orders can be read (the list's end is one page away); absent: `defaultOrder` only. */
  orders?: true;
  /** The order the view opens in (default `asc`). */
  defaultOrder?: Order;
  /** How the order reads with this filter, when not by creation (a search is by the matched text). */
  orderLabel?: (order: Order, filter: string) => string | undefined;
  /** What `/` takes in this view, for its prompt and the help. */
  filterHint?: string;
  key: (row: Row) => string;
  detail?: (client: SandboxClient, row: Row) => Promise<DetailSection[]>;
  /** The prefix of this view's ids (`Customer`): Enter on such an id in any detail opens it here. */
  idPrefix?: string | string[];
  /** The row of an id, for opening it from another detail (`from`: the record whose detail names it). */
  fetch?: (client: SandboxClient, id: string, from?: unknown) => Promise<Row>;
  actions?: ViewAction<Row>[];
  /** Forms to create records (a customer, an external account, a quote). */
  forms?: FormSpec[];
  /** Whether a change may touch this view (default: every change of the platform does). */
  refreshOn?: (change: Change) => boolean;
}

/** The contract's list limit and count cap (README, "Lists"): a count at the cap is a floor. */
const COUNT_CAP = 10_000;

/**
 * A list page from a contract or control-plane list operation (`{data, nextCursor, totalCount}`).
 * `query` holds the operation's filters (and `sortOrder` where it has one).
 */
export async function contractPage<Row>(
  client: SandboxClient,
  path: string,
  cursor: string | undefined,
  limit: number,
  query: URLSearchParams = new URLSearchParams(),
  plane: 'api' | 'control' = 'api',
): Promise<Page<Row>> {
  const params = new URLSearchParams(query);
  params.set('limit', String(Math.min(limit, 100)));
  if (cursor) params.set('cursor', cursor);
  const join = path.includes('?') ? '&' : '?';
  const page = await client[plane]<{ data: Row[]; nextCursor?: string; hasMore?: boolean; totalCount?: number; totalCountCapped?: boolean }>('GET', `${path}${join}${params}`);
  return {
    rows: page.data,
    nextCursor: page.hasMore === false ? undefined : page.nextCursor,
    total: page.totalCount,
    totalCapped: page.totalCountCapped === true || (page.totalCountCapped === undefined && page.totalCount !== undefined && page.totalCount >= COUNT_CAP),
  };
}

/**
 * A view's filter text as query parameters: `key=value` words, each key one of `keys` (the
 * name typed, mapped to the operation's parameter), and the other words, joined, as `free` (when
 * the view has a parameter for text). An unknown key or stray text is an error naming what is
 * accepted.
 */
export function filterQuery(text: string, keys: Record<string, string>, free?: string): URLSearchParams {
  const params = new URLSearchParams();
  const words: string[] = [];
  for (const word of text.trim().split(/\s+/).filter(Boolean)) {
    const eq = word.indexOf('=');
    if (eq <= 0) {
      words.push(word);
      continue;
    }
    const name = word.slice(0, eq);
    const param = keys[name];
    if (!param) throw new Error(`filter: no "${name}" here; use ${Object.keys(keys).map((k) => `${k}=`).join(' ')}`);
    params.set(param, word.slice(eq + 1));
  }
  if (words.length) {
    if (!free) throw new Error(`filter: type ${Object.keys(keys).map((k) => `${k}=...`).join(' ')}`);
    params.set(free, words.join(' '));
  }
  return params;
}

/** The filter's help text from its keys: `status=, type=`. */
export const filterHintOf = (keys: Record<string, string>, free?: string) => `${free ? `${free} text or ` : ''}${Object.keys(keys).map((k) => `${k}=`).join(' ')}`;

/**
 * The currency of a bare amount field from its siblings: `totalSendingAmount` beside
 * `sendingCurrency`, `totalReceivingAmount` beside `receivingCurrency`, `amount` or `fee`
 * beside `currency` (an object with a code, or a code).
 */
function currencyOfAmount(parent: Record<string, unknown>, key: string): Money['currency'] | undefined {
  if (!/(amount|fees?|feesIncluded|balance)$/i.test(key)) return undefined;
  // A quote's fees are in its sending currency.
  const side = /sending|fees/i.test(key) ? 'sendingCurrency' : /receiving/i.test(key) ? 'receivingCurrency' : 'currency';
  const found = parent[side] ?? parent.currency;
  if (typeof found === 'string' && /^[A-Z]{3,5}$/.test(found)) return { code: found };
  if (isMoneyCurrency(found)) return found;
  return undefined;
}
const isMoneyCurrency = (value: unknown): value is Money['currency'] =>
  typeof value === 'object' && value !== null && typeof (value as Money['currency']).code === 'string';

/**
 * Label/value lines of an object: scalars as `label  value`, nested objects as indented fields
 * (money as `$50.00 USD`, timestamps absolute and relative), arrays item by item.
 */
export function fieldsOf(value: Record<string, unknown>, skip: string[] = [], depth = 0): string[] {
  const pad = '  '.repeat(depth);
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (skip.includes(key) || v === undefined || v === null) continue;
    const label = `${pad}${key}`;
    const currency = typeof v === 'number' ? currencyOfAmount(value, key) : undefined;
    if (isMoney(v)) out.push(`${label.padEnd(26)} ${formatMoney(v)}`);
    else if (currency) out.push(`${label.padEnd(26)} ${formatMoney({ amount: v as number, currency })}`);
    else if (Array.isArray(v)) {
      if (v.length === 0) out.push(`${label.padEnd(26)} (none)`);
      else if (v.every((item) => item === null || typeof item !== 'object')) out.push(`${label.padEnd(26)} ${v.join(', ')}`);
      else {
        out.push(`${label}:`);
        v.forEach((item, i) => {
          if (item !== null && typeof item === 'object') {
            out.push(`${pad}  [${i + 1}]`);
            out.push(...fieldsOf(item as Record<string, unknown>, [], depth + 2));
          } else out.push(`${pad}  [${i + 1}] ${String(item)}`);
        });
      }
    } else if (typeof v === 'object') {
      out.push(`${label}:`);
      out.push(...fieldsOf(v as Record<string, unknown>, [], depth + 1));
    } else out.push(`${label.padEnd(26)} ${typeof v === 'string' ? timeOrText(v) : String(v)}`);
  }
  return out;
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
  /** The operation's filters: the name typed before `=` -> its query parameter. */
  filters?: Record<string, string>;
  /** The parameter free text goes to, if any. */
  freeFilter?: string;
  /** The operation's `sortOrder` parameter exists: both orders, newest first by default. */
  sortOrder?: boolean;
  idPrefix?: string | string[];
  /** The detail's sections after the record's own fields. */
  more?: (client: SandboxClient, row: Row) => Promise<DetailSection[]>;
}): ResourceView<Row> {
  const get = (client: SandboxClient, id: string) => client.api<Row>('GET', `${options.path}/${encodeURIComponent(id)}`);
  return {
    id: options.id,
    title: options.title,
    columns: options.columns,
    load: (client, request) => {
      const query = filterQuery(request.filter, options.filters ?? {}, options.freeFilter);
      if (options.sortOrder) query.set('sortOrder', request.order);
      return contractPage<Row>(client, options.path, request.cursor, request.limit, query);
    },
    ...(options.sortOrder ? { orders: true as const, defaultOrder: 'desc' as const } : {}),
    filterHint: filterHintOf(options.filters ?? {}, options.freeFilter),
    key: (row) => row.id,
    idPrefix: options.idPrefix,
    fetch: get,
    detail: async (client, row) => {
      const [record, more] = await Promise.all([get(client, row.id), options.more ? options.more(client, row) : Promise.resolve([])]);
      return [{ title: options.title, lines: fieldsOf(record as Record<string, unknown>) }, ...more];
    },
    actions: options.actions,
  };
}
