import { formatMoney, parseMoney, shortId, statusColor, whenCell, relativeTime } from '../format.js';
import { RequestError } from '../client.js';
import { contractPage, fieldsOf, type FormSpec, type ResourceView } from './types.js';

type Currency = { code: string; decimals?: number };
/** A quote as `GET /quotes/{id}` answers it (the fields the view reads). */
export interface QuoteRow {
  id: string;
  status: string;
  createdAt?: string;
  expiresAt?: string;
  sendingCurrency?: Currency;
  receivingCurrency?: Currency;
  totalSendingAmount?: number;
  totalReceivingAmount?: number;
  exchangeRate?: number;
  transactionId?: string;
  source?: { sourceType?: string; accountId?: string; customerId?: string };
  destination?: { destinationType?: string; accountId?: string; umaAddress?: string };
  [key: string]: unknown;
}

export const sending = (q: QuoteRow) => (q.sendingCurrency && q.totalSendingAmount !== undefined ? formatMoney({ amount: q.totalSendingAmount, currency: q.sendingCurrency }) : '');
export const receiving = (q: QuoteRow) => (q.receivingCurrency && q.totalReceivingAmount !== undefined ? formatMoney({ amount: q.totalReceivingAmount, currency: q.receivingCurrency }) : '');

/** `Q`: a new quote from an internal account to an external account (or UMA address), as `POST /quotes`. */
export const newQuoteForm: FormSpec = {
  key: 'Q',
  title: 'New quote',
  fields: [
    { name: 'sourceAccountId', label: 'From account', initial: (row: { id?: string; type?: string } | undefined) => (row?.id?.startsWith('InternalAccount:') ? row.id : ''), hint: 'InternalAccount:… id' },
    { name: 'destination', label: 'To', initial: (row: { id?: string } | undefined) => (row?.id?.startsWith('ExternalAccount:') ? row.id : ''), hint: 'ExternalAccount:… id or $uma@address' },
    { name: 'side', label: 'Locked side', initial: 'SENDING', choices: ['SENDING', 'RECEIVING'] },
    { name: 'amount', label: 'Amount', hint: "in the locked currency's units, e.g. 50.00" },
    { name: 'decimals', label: 'Decimals', initial: '2', hint: 'of the locked currency (2 for USD, 8 for BTC)' },
  ],
  submit: async (client, v) => {
    let amount: number;
    try {
      amount = parseMoney(v.amount ?? '', Number(v.decimals || '2'));
    } catch (error) {
      throw new RequestError(400, 'INVALID_INPUT', (error as Error).message, [{ field: 'amount', message: (error as Error).message }]);
    }
    const to = (v.destination ?? '').trim();
    const body = {
      source: { sourceType: 'ACCOUNT', accountId: (v.sourceAccountId ?? '').trim() },
      destination: to.startsWith('$') ? { destinationType: 'UMA_ADDRESS', umaAddress: to } : { destinationType: 'ACCOUNT', accountId: to },
      lockedCurrencySide: v.side,
      lockedCurrencyAmount: amount,
    };
    try {
      const quote = await client.api<QuoteRow>('POST', '/quotes', body);
      return { message: `quote ${quote.id}: ${sending(quote)} -> ${receiving(quote)}, expires ${relativeTime(quote.expiresAt)}`, open: quote.id };
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      const names: Record<string, string> = { 'source.accountId': 'sourceAccountId', source: 'sourceAccountId', 'destination.accountId': 'destination', 'destination.umaAddress': 'destination', destination: 'destination', lockedCurrencyAmount: 'amount', lockedCurrencySide: 'side' };
      throw new RequestError(error.status, error.code, error.message, error.fields.map((f) => ({ ...f, field: names[f.field] ?? f.field })));
    }
  },
};

/** Quotes (the control plane lists them; the contract has no list): amounts both sides, status, expiry; execute and cancel. */
export const quotesView: ResourceView<QuoteRow> = {
  id: 'quotes',
  title: 'Quotes',
  columns: [
    { header: 'CREATED', width: 20, value: (q) => whenCell(q.createdAt) },
    { header: 'STATUS', width: 12, value: (q) => q.status, color: (q) => statusColor(q.status) },
    { header: 'SENDING', width: 0, value: sending, align: 'right' },
    { header: 'RECEIVING', width: 0, value: receiving, align: 'right' },
    { header: 'EXPIRES', width: 10, value: (q) => relativeTime(q.expiresAt) },
    { header: 'ID', width: 9, value: (q) => shortId(q.id) },
  ],
  load: (client, { cursor, limit, order }) => contractPage<QuoteRow>(client, '/quotes', cursor, limit, new URLSearchParams({ order }), 'control'),
  orders: true,
  defaultOrder: 'desc',
  key: (q) => q.id,
  idPrefix: 'Quote',
  fetch: (client, id) => client.api<QuoteRow>('GET', `/quotes/${encodeURIComponent(id)}`),
  detail: async (client, row) => {
    const quote = await client.api<QuoteRow>('GET', `/quotes/${encodeURIComponent(row.id)}`);
    const ids = [quote.id, quote.transactionId].filter((x): x is string => typeof x === 'string');
    const events = (
      await Promise.all(ids.map((id) => client.control<{ data: { id: string; type: string; status: string; timestamp: string }[] }>('GET', `/webhooks/deliveries?resourceId=${encodeURIComponent(id)}&limit=50`).catch(() => ({ data: [] }))))
    ).flatMap((p) => p.data);
    return [
      { title: 'Quote', lines: fieldsOf(quote) },
      { title: `Webhook events (${events.length})`, lines: events.map((e) => `${e.id}  ${whenCell(e.timestamp)}  ${e.type}  (${e.status})`) },
    ];
  },
  forms: [newQuoteForm],
  actions: [
    {
      key: 'x',
      label: 'execute the quote (POST /quotes/{id}/execute)',
      confirm: (q) => `Execute ${shortId(q.id)}: send ${sending(q)}?`,
      run: async (client, row) => {
        const q = await client.api<QuoteRow>('POST', `/quotes/${encodeURIComponent(row.id)}/execute`, {});
        return `${shortId(row.id)} is now ${q.status}${q.transactionId ? `; transaction ${q.transactionId}` : ''}`;
      },
    },
    {
      key: 'c',
      label: "cancel the quote's transaction (POST /transactions/{id}/cancel)",
      confirm: (q) => `Cancel the transaction of ${shortId(q.id)}?`,
      applies: (q) => typeof q.transactionId === 'string',
      run: async (client, row) => {
        const t = await client.api<{ status: string }>('POST', `/transactions/${encodeURIComponent(row.transactionId!)}/cancel`, {});
        return `${shortId(row.transactionId)} is now ${t.status}`;
      },
    },
  ],
};
