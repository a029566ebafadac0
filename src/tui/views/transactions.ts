import { formatMoney, shortId, shortTime, statusColor } from '../format.js';
import { contractPage, fieldsOf, type ResourceView } from './types.js';

type Money = { amount: number; currency: { code: string; decimals?: number } };

/** A transaction as the contract returns it (the fields the view reads). */
export interface TransactionRow {
  id: string;
  type: 'INCOMING' | 'OUTGOING';
  status: string;
  customerId?: string;
  sentAmount?: Money;
  receivedAmount?: Money;
  quoteId?: string;
  destination?: { destinationType?: string; accountId?: string };
  paymentRail?: string;
  rail?: string;
  createdAt?: string;
  [key: string]: unknown;
}

const amountOf = (t: TransactionRow) => formatMoney(t.type === 'INCOMING' ? (t.receivedAmount ?? t.sentAmount) : (t.sentAmount ?? t.receivedAmount));
const railOf = (t: TransactionRow) => t.paymentRail ?? t.rail ?? (t.quoteId ? 'quote' : '-');

/** Transactions (quotes appear in their transaction's detail): status, amount, rail, and the timeline of status events. */
export const transactionsView: ResourceView<TransactionRow> = {
  id: 'transactions',
  title: 'Transactions',
  columns: [
    { header: 'ID', width: 9, value: (t) => shortId(t.id) },
    { header: 'TIME', width: 14, value: (t) => shortTime(t.createdAt) },
    { header: 'TYPE', width: 9, value: (t) => t.type },
    { header: 'STATUS', width: 12, value: (t) => t.status, color: (t) => statusColor(t.status) },
    { header: 'AMOUNT', width: 20, value: amountOf, align: 'right' },
    { header: 'RAIL', width: 0, value: railOf },
  ],
  load: (client, cursor, limit) => contractPage<TransactionRow>(client, '/transactions', cursor, limit),
  key: (t) => t.id,
  detail: async (client, row) => {
    const [transaction, events, quote] = await Promise.all([
      client.api<TransactionRow>('GET', `/transactions/${encodeURIComponent(row.id)}`),
      client.control<{ data: { id: string; type: string; timestamp: string; status: string }[] }>(
        'GET',
        `/webhooks/deliveries?resourceId=${encodeURIComponent(row.id)}&limit=100`,
      ),
      row.quoteId ? client.api<Record<string, unknown>>('GET', `/quotes/${encodeURIComponent(row.quoteId)}`).catch(() => undefined) : Promise.resolve(undefined),
    ]);
    return [
      { title: 'Transaction', lines: fieldsOf(transaction) },
      { title: 'Timeline', lines: [...events.data].reverse().map((e) => `${shortTime(e.timestamp)}  ${e.type}  (webhook ${e.status})`) },
      ...(quote ? [{ title: 'Quote', lines: fieldsOf(quote) }] : []),
    ];
  },
  actions: [
    {
      key: 'w',
      label: 'trigger the webhook of its status',
      run: async (client, row) => {
        const type = `${row.type === 'INCOMING' ? 'INCOMING_PAYMENT' : 'OUTGOING_PAYMENT'}.${row.status}`;
        const event = await client.control<{ id: string }>('POST', '/webhooks/trigger', { type, resourceId: row.id });
        return `triggered ${type} ${shortId(event.id)}`;
      },
    },
  ],
};
