import { formatMoney, parseMoney, shortId, statusColor, whenCell } from '../format.js';
import { customerCell } from '../names.js';
import type { SandboxClient } from '../client.js';
import { contractListView, type ViewAction } from './types.js';

/** A card as the contract returns it. */
export interface CardRow {
  id: string;
  cardholderId: string;
  platformCardId?: string;
  state: string;
  brand?: string;
  last4?: string;
  currency?: string;
  fundingSources?: string[];
  createdAt?: string;
  [key: string]: unknown;
}

/**
 * The descriptor suffixes the sandbox decides by (docs/cards.md): offered in the simulation's
 * prompt, so a decline or a slow pull is one word away.
 */
export const DESCRIPTOR_SUFFIXES: Record<string, string> = {
  '': 'approved (state, limits and balance permitting)',
  '002': 'declined INSUFFICIENT_FUNDS',
  '003': 'declined CARD_PAUSED',
  '005': 'approved, the pull PENDING 30 s',
  '006': 'approved, the pull EXCEPTION',
};
const suffixHelp = Object.entries(DESCRIPTOR_SUFFIXES)
  .map(([suffix, what]) => `${suffix || 'none'}: ${what}`)
  .join('; ');

/** The card transaction each card's last simulation opened in this session (clear and return start from it). */
const lastCardTransaction = new Map<string, string>();

async function outcomeOf(client: SandboxClient, token: string) {
  return client.control<{ outcome: string; declineReason: string | null; cardTransactionId: string | null }>('GET', `/cards/simulations/${encodeURIComponent(token)}`);
}

const decimalsOf = (card: CardRow) => (card.currency === 'USDC' || card.currency === 'USDB' ? 6 : 2);

/** A simulation prompt: `amount [descriptor]` or `cardTransactionId amount`. */
const simulate = (key: string, label: string, kind: 'authorization' | 'clearing' | 'return'): ViewAction<CardRow> => ({
  key,
  label,
  applies: (card) => card.state !== 'CLOSED',
  prompt: (card) =>
    kind === 'authorization'
      ? `Authorize on ${card.brand ?? 'card'} ${card.last4 ?? shortId(card.id)}: amount and merchant descriptor (suffixes: ${suffixHelp})`
      : `${kind === 'clearing' ? 'Clear' : 'Return'}: card transaction id and amount (${kind === 'clearing' ? '0 releases the hold' : 'to credit back'})`,
  suggest: (card) => (kind === 'authorization' ? '12.34 Coffee Shop' : `${lastCardTransaction.get(card.id) ?? ''} `),
  run: async (client, card, input) => {
    const words = (input ?? '').trim().split(/\s+/);
    const currency = card.currency ?? 'USD';
    let body: Record<string, unknown>;
    if (kind === 'authorization') {
      const amount = parseMoney(words[0] ?? '', decimalsOf(card));
      body = { amount, currency: { code: currency }, merchant: { descriptor: words.slice(1).join(' ') || 'Sandbox Merchant' } };
    } else {
      const [cardTransactionId, amountText] = words;
      if (!cardTransactionId || !amountText) throw new Error('type the card transaction id and an amount');
      const amount = amountText === '0' && kind === 'clearing' ? 0 : parseMoney(amountText, decimalsOf(card));
      body = { cardTransactionId, amount };
    }
    const path = kind === 'authorization' ? 'authorization' : kind;
    const started = await client.api<{ issuerTransactionToken: string }>('POST', `/sandbox/cards/${encodeURIComponent(card.id)}/simulate/${path}`, body);
    const outcome = await outcomeOf(client, started.issuerTransactionToken);
    if (outcome.cardTransactionId) lastCardTransaction.set(card.id, outcome.cardTransactionId);
    const amount = typeof body.amount === 'number' ? formatMoney(body.amount, currency) : '';
    return `${kind} ${amount}: ${outcome.outcome}${outcome.declineReason ? ` ${outcome.declineReason}` : ''}${outcome.cardTransactionId ? ` ${outcome.cardTransactionId}` : ''}`;
  },
});

const setState = (key: string, label: string, state: 'ACTIVE' | 'FROZEN' | 'CLOSED', applies: (card: CardRow) => boolean): ViewAction<CardRow> => ({
  key,
  label,
  applies,
  ...(state === 'CLOSED' ? { confirm: (card: CardRow) => `Close ${card.brand ?? 'card'} ${card.last4 ?? shortId(card.id)} for good?` } : {}),
  run: async (client, card) => {
    const updated = await client.api<CardRow>('PATCH', `/cards/${encodeURIComponent(card.id)}`, { state });
    return `${card.last4 ? `•••• ${card.last4}` : shortId(card.id)} is now ${updated.state}`;
  },
});

/** Cards: holder by name, state, brand and last four; freeze, unfreeze, close and the network simulations. */
export const cardsView = contractListView<CardRow>({
  id: 'cards',
  title: 'Cards',
  path: '/cards',
  filters: { holder: 'cardholderId', account: 'accountId', pcid: 'platformCardId', state: 'state' },
  sortOrder: true,
  idPrefix: 'Card',
  columns: [
    { header: 'CREATED', width: 20, value: (c) => whenCell(c.createdAt) },
    { header: 'HOLDER', width: 0, value: (c, client) => customerCell(client, c.cardholderId) },
    { header: 'CARD', width: 16, value: (c) => `${c.brand ?? ''} ${c.last4 ? `•••• ${c.last4}` : ''}`.trim() },
    { header: 'CUR', width: 5, value: (c) => c.currency ?? '' },
    { header: 'STATE', width: 10, value: (c) => c.state, color: (c) => statusColor(c.state) },
    { header: 'ID', width: 9, value: (c) => shortId(c.id) },
  ],
  more: async (client, card) => {
    const transactions = await client
      .api<{ data: { id: string; status: string; cardId?: string; createdAt?: string; sentAmount?: { amount: number; currency: { code: string; decimals?: number } } }[] }>('GET', '/transactions?type=CARD&limit=100&sortOrder=desc')
      .catch(() => ({ data: [] }));
    const mine = transactions.data.filter((t) => t.cardId === card.id || JSON.stringify(t).includes(card.id));
    return [{ title: `Card transactions (${mine.length})`, lines: mine.map((t) => `${t.id}  ${t.status}  ${formatMoney(t.sentAmount)}  ${whenCell(t.createdAt)}`) }];
  },
  actions: [
    setState('f', 'freeze', 'FROZEN', (c) => c.state === 'ACTIVE'),
    setState('u', 'unfreeze', 'ACTIVE', (c) => c.state === 'FROZEN'),
    setState('C', 'close (asks first)', 'CLOSED', (c) => c.state !== 'CLOSED'),
    simulate('A', 'simulate an authorization (descriptor suffixes offered)', 'authorization'),
    simulate('L', 'simulate a clearing of a card transaction', 'clearing'),
    simulate('T', 'simulate a return of a card transaction', 'return'),
  ],
});
