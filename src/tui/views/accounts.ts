import { formatMoney, parseMoney, shortId, statusColor, type Money } from '../format.js';
import { customerCell } from '../names.js';
import { newQuoteForm } from './quotes.js';
import { contractPage, fieldsOf, filterHintOf, filterQuery, type ResourceView } from './types.js';

/** An internal account as the contract returns it. */
export interface InternalAccountRow {
  id: string;
  customerId?: string;
  type: string;
  status: string;
  balance: Money;
  totalBalance: Money;
  [key: string]: unknown;
}

const FILTERS = { customer: 'customerId', currency: 'currency', type: 'type' };

/** Internal accounts: the platform's own first, then every customer's, with balances in the currency's units and owners by name. */
export const accountsView: ResourceView<InternalAccountRow> = {
  id: 'accounts',
  title: 'Accounts',
  columns: [
    { header: 'OWNER', width: 0, value: (a, client) => customerCell(client, a.customerId, 'platform') },
    { header: 'TYPE', width: 24, value: (a) => a.type },
    { header: 'STATUS', width: 8, value: (a) => a.status, color: (a) => statusColor(a.status) },
    { header: 'BALANCE', width: 24, value: (a) => formatMoney(a.balance), align: 'right' },
    { header: 'TOTAL', width: 24, value: (a) => formatMoney(a.totalBalance), align: 'right' },
    { header: 'ID', width: 9, value: (a) => shortId(a.id) },
  ],
  filterHint: filterHintOf(FILTERS),
  load: async (client, { cursor, limit, filter }) => {
    const query = filterQuery(filter, FILTERS);
    // The platform's own accounts come first (one short list; not when a customer is asked for), then the customers' pages.
    if (cursor === undefined && !query.has('customerId')) {
      const own = new URLSearchParams([...query].filter(([k]) => k !== 'customerId'));
      const [platform, first] = await Promise.all([
        client.api<{ data: InternalAccountRow[] }>('GET', `/platform/internal-accounts${own.size ? `?${own}` : ''}`),
        contractPage<InternalAccountRow>(client, '/customers/internal-accounts', undefined, limit, query),
      ]);
      return { ...first, rows: [...platform.data, ...first.rows], total: first.total === undefined ? undefined : first.total + platform.data.length };
    }
    return contractPage<InternalAccountRow>(client, '/customers/internal-accounts', cursor, limit, query);
  },
  key: (a) => a.id,
  idPrefix: 'InternalAccount',
  fetch: async (client, id, from) => {
    // The contract has no GET of one internal account: its owner's list (the customers the
    // record it was opened from names), the platform's, then the customers' lists page by page.
    const owners = new Set<string>();
    const walk = (value: unknown, depth: number) => {
      if (depth > 3 || value === null || typeof value !== 'object') return;
      for (const v of Object.values(value)) {
        if (typeof v === 'string' && v.startsWith('Customer:')) owners.add(v);
        else walk(v, depth + 1);
      }
    };
    walk(from, 0);
    for (const owner of [...owners].slice(0, 5)) {
      const page = await contractPage<InternalAccountRow>(client, '/customers/internal-accounts', undefined, 100, new URLSearchParams({ customerId: owner })).catch(() => undefined);
      const found = page?.rows.find((a) => a.id === id);
      if (found) return found;
    }
    const all = await client.api<{ data: InternalAccountRow[] }>('GET', '/platform/internal-accounts');
    const own = all.data.find((a) => a.id === id);
    if (own) return own;
    let cursor: string | undefined;
    for (let pages = 0; pages < 50; pages += 1) {
      const page = await contractPage<InternalAccountRow>(client, '/customers/internal-accounts', cursor, 100);
      const found = page.rows.find((a) => a.id === id);
      if (found) return found;
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    throw new Error(`${id} is not among the accounts of the customers this record names, nor the first 5,000; / customer=… in Accounts finds it`);
  },
  detail: async (client, row) => {
    const transactions = await client
      .api<{ data: { id: string; type: string; status: string; createdAt?: string; sentAmount?: Money; receivedAmount?: Money }[] }>('GET', `/transactions?accountIdentifier=${encodeURIComponent(row.id)}&limit=20&sortOrder=desc`)
      .catch(() => ({ data: [] }));
    return [
      { title: 'Internal account', lines: fieldsOf(row) },
      { title: 'Latest transactions', lines: transactions.data.map((t) => `${t.id}  ${t.type}  ${t.status}  ${formatMoney(t.sentAmount ?? t.receivedAmount)}  ${t.createdAt ?? ''}`) },
    ];
  },
  forms: [newQuoteForm],
  actions: [
    {
      key: 'f',
      label: "fund (amount in the currency's units)",
      prompt: (a) => `Fund ${shortId(a.id)} with how many ${a.balance.currency.code}?`,
      run: async (client, row, input) => {
        const amount = parseMoney(input ?? '', row.balance.currency.decimals ?? 2);
        const account = await client.api<InternalAccountRow>('POST', `/sandbox/internal-accounts/${encodeURIComponent(row.id)}/fund`, { amount });
        return `funded ${shortId(row.id)}: balance ${formatMoney(account.balance)}`;
      },
    },
  ],
};
