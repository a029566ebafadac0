import { formatMoney, shortId, statusColor, whenCell, type Money } from '../format.js';
import { customerCell } from '../names.js';
import { fieldsOf, filterHintOf, filterQuery, contractPage, type ResourceView } from './types.js';

/** A transaction as the contract returns it (the fields the view reads). */
export interface TransactionRow {
  id: string;
  type: string;
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
const FILTERS = { customer: 'customerId', pcid: 'platformCustomerId', account: 'accountIdentifier', status: 'status', type: 'type', reference: 'reference', from: 'startDate', to: 'endDate' };

/** Transactions, newest first (or oldest): who, status, amount, rail; the detail has its quote and the timeline of its webhook events. */
export const transactionsView: ResourceView<TransactionRow> = {
  id: 'transactions',
  title: 'Transactions',
  columns: [
    { header: 'TIME', width: 20, value: (t) => whenCell(t.createdAt) },
    { header: 'CUSTOMER', width: 0, value: (t, client) => customerCell(client, t.customerId, 'platform') },
    { header: 'TYPE', width: 9, value: (t) => t.type },
    { header: 'STATUS', width: 12, value: (t) => t.status, color: (t) => statusColor(t.status) },
    { header: 'AMOUNT', width: 24, value: amountOf, align: 'right' },
    { header: 'RAIL', width: 10, value: railOf },
    { header: 'ID', width: 9, value: (t) => shortId(t.id) },
  ],
  filterHint: filterHintOf(FILTERS),
  load: (client, { cursor, limit, order, filter }) => {
    const query = filterQuery(filter, FILTERS);
    query.set('sortOrder', order);
    return contractPage<TransactionRow>(client, '/transactions', cursor, limit, query);
  },
  orders: true,
  defaultOrder: 'desc',
  key: (t) => t.id,
  idPrefix: ['Transaction', 'CardTransaction'],
  fetch: (client, id) => client.api<TransactionRow>('GET', `/transactions/${encodeURIComponent(id)}`),
  detail: async (client, row) => {
    const [transaction, events] = await Promise.all([
      client.api<TransactionRow>('GET', `/transactions/${encodeURIComponent(row.id)}`),
      client.control<{ data: { id: string; type: string; timestamp: string; status: string }[] }>('GET', `/webhooks/deliveries?resourceId=${encodeURIComponent(row.id)}&limit=100`),
    ]);
    return [
      { title: 'Transaction', lines: fieldsOf(transaction) },
      { title: `Webhook events (${events.data.length})`, lines: [...events.data].reverse().map((e) => `${e.id}  ${whenCell(e.timestamp)}  ${e.type}  (${e.status})`) },
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
    {
      key: 'c',
      label: 'cancel (POST /transactions/{id}/cancel)',
      confirm: (t) => `Cancel ${t.id}?`,
      run: async (client, row) => {
        const t = await client.api<TransactionRow>('POST', `/transactions/${encodeURIComponent(row.id)}/cancel`, {});
        return `${shortId(row.id)} is now ${t.status}`;
      },
    },
  ],
};
