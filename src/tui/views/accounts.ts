import { formatMoney, parseMoney, shortId, statusColor } from '../format.js';
import { contractPage, fieldsOf, type Page, type ResourceView } from './types.js';

/** An internal account as the contract returns it. */
export interface InternalAccountRow {
  id: string;
  customerId?: string;
  type: string;
  status: string;
  balance: { amount: number; currency: { code: string; decimals?: number } };
  totalBalance: { amount: number; currency: { code: string; decimals?: number } };
  [key: string]: unknown;
}

/** Internal accounts: the platform's own first, then every customer's, with balances in the currency's units. */
export const accountsView: ResourceView<InternalAccountRow> = {
  id: 'accounts',
  title: 'Accounts',
  columns: [
    { header: 'ID', width: 9, value: (a) => shortId(a.id) },
    { header: 'OWNER', width: 9, value: (a) => (a.customerId ? shortId(a.customerId) : 'platform') },
    { header: 'TYPE', width: 0, value: (a) => a.type },
    { header: 'STATUS', width: 7, value: (a) => a.status, color: (a) => statusColor(a.status) },
    { header: 'BALANCE', width: 18, value: (a) => formatMoney(a.balance), align: 'right' },
    { header: 'TOTAL', width: 18, value: (a) => formatMoney(a.totalBalance), align: 'right' },
  ],
  load: async (client, cursor, limit): Promise<Page<InternalAccountRow>> => {
    // The platform's own accounts come first (one short list), then the customers' pages.
    if (cursor === undefined) {
      const platform = await client.api<{ data: InternalAccountRow[] }>('GET', '/platform/internal-accounts');
      const first = await contractPage<InternalAccountRow>(client, '/customers/internal-accounts', undefined, limit);
      return { rows: [...platform.data, ...first.rows], nextCursor: first.nextCursor, total: first.total === undefined ? undefined : first.total + platform.data.length };
    }
    return contractPage<InternalAccountRow>(client, '/customers/internal-accounts', cursor, limit);
  },
  key: (a) => a.id,
  detail: async (client, row) => {
    const transactions = await client
      .api<{ data: { id: string; type: string; status: string; createdAt?: string }[] }>('GET', `/transactions?accountIdentifier=${encodeURIComponent(row.id)}&limit=20`)
      .catch(() => ({ data: [] }));
    return [
      { title: 'Internal account', lines: fieldsOf(row) },
      { title: 'Latest transactions', lines: transactions.data.map((t) => `${t.id}  ${t.type}  ${t.status}  ${t.createdAt ?? ''}`) },
    ];
  },
  actions: [
    {
      key: 'f',
      label: 'fund (amount in the currency\'s units)',
      prompt: (a) => `Fund ${shortId(a.id)} with how many ${a.balance.currency.code}?`,
      run: async (client, row, input) => {
        const amount = parseMoney(input ?? '', row.balance.currency.decimals ?? 2);
        const account = await client.api<InternalAccountRow>('POST', `/sandbox/internal-accounts/${encodeURIComponent(row.id)}/fund`, { amount });
        return `funded ${shortId(row.id)}: balance ${formatMoney(account.balance)}`;
      },
    },
  ],
};
