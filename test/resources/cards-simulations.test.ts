import { describe, expect, it } from 'vitest';
import { auditLedger } from '../../src/resources/ledger/index.js';
import { useSandbox } from '../helpers/sandbox.js';
import { activeCard, auth, balances, cardholder, cardTx, extraUsdAccount, fitsWebhook, simulate } from './cards-helpers.js';

const s = useSandbox();

const cardEvents = (platformId: string, id: string) =>
  s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => e.resourceId === id && e.type.startsWith('CARD_TRANSACTION.'));

async function setup(fund = 1_000_00, extra: Record<string, unknown> = {}) {
  const h = await cardholder(s.api, s.sandbox, fund);
  const card = await activeCard(h.api, h.customer.id, [h.usd], extra);
  return { ...h, card };
}

describe('card simulations: authorisation', () => {
  it('an approved authorisation holds the amount (balance down, total unchanged) and shows as a CARD transaction', async () => {
    const { api, customer, usd, card, platformId } = await setup();
    const result = await simulate(api, card.id, 'authorization', auth(12_50));
    expect(result).toMatchObject({ outcome: 'APPROVED', declineReason: null });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 987_50, total: 1_000_00 });
    const tx = await cardTx(api, result.cardTransactionId!);
    expect(tx).toMatchObject({
      type: 'CARD',
      status: 'AUTHORIZED',
      direction: 'DEBIT',
      cardId: card.id,
      accountId: usd,
      customerId: customer.id,
      authorizedAmount: { amount: 12_50, currency: { code: 'USD' } },
      settledAmount: { amount: 0 },
      pullSummary: { count: 1, totalAmount: 12_50, pendingCount: 0 },
      merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' },
    });
    const list = await api.get(`/transactions?type=CARD&accountIdentifier=${encodeURIComponent(usd)}`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((t: { id: string }) => t.id)).toEqual([tx.id]);
    const sent = cardEvents(platformId, tx.id);
    expect(sent.map((e) => e.type)).toEqual(['CARD_TRANSACTION.AUTHORIZED']);
    fitsWebhook(sent[0]!);
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('descriptor 002 declines INSUFFICIENT_FUNDS, 003 CARD_PAUSED; a FROZEN card declines CARD_PAUSED; nothing moves', async () => {
    const { api, customer, usd, card } = await setup();
    expect(await simulate(api, card.id, 'authorization', auth(500, 'AMAZON RETAIL US-002'))).toMatchObject({ outcome: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS', cardTransactionId: null });
    expect(await simulate(api, card.id, 'authorization', auth(500, 'SHOP 003'))).toMatchObject({ outcome: 'DECLINED', declineReason: 'CARD_PAUSED' });
    await api.patch(`/cards/${card.id}`, { state: 'FROZEN' });
    expect(await simulate(api, card.id, 'authorization', auth(500))).toMatchObject({ outcome: 'DECLINED', declineReason: 'CARD_PAUSED' });
    expect(await simulate(api, card.id, 'balance_inquiry', { merchant: { descriptor: 'SHELL OIL 12345678' } })).toMatchObject({ outcome: 'DECLINED', declineReason: 'CARD_PAUSED' });
    await api.patch(`/cards/${card.id}`, { state: 'ACTIVE' });
    expect(await simulate(api, card.id, 'balance_inquiry', { merchant: { descriptor: 'SHELL OIL 12345678' } })).toMatchObject({ outcome: 'APPROVED', cardTransactionId: null });
    expect(await simulate(api, card.id, 'authorization', auth(1_000_01))).toMatchObject({ outcome: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 1_000_00, total: 1_000_00 });
    expect((await api.get('/transactions?type=CARD')).body.data).toEqual([]);
  });

  it('005: the pull stays PENDING about 30 s, then CONFIRMED; 006: the confirmation FAILS: EXCEPTION', async () => {
    const { api, card, platformId } = await setup();
    const delayed = await simulate(api, card.id, 'authorization', auth(10_00, 'UBER TRIP 005'));
    expect((await cardTx(api, delayed.cardTransactionId!)).pullSummary).toEqual({ count: 1, totalAmount: 10_00, pendingCount: 1 });
    await api.advance(31);
    expect((await cardTx(api, delayed.cardTransactionId!)).pullSummary).toEqual({ count: 1, totalAmount: 10_00, pendingCount: 0 });
    const failed = await simulate(api, card.id, 'authorization', auth(7_00, 'HOTEL 006'));
    expect((await cardTx(api, failed.cardTransactionId!)).status).toBe('EXCEPTION');
    const sent = cardEvents(platformId, failed.cardTransactionId!);
    expect(sent.map((e) => e.type)).toEqual(['CARD_TRANSACTION.AUTHORIZED', 'CARD_TRANSACTION.EXCEPTION']);
    for (const e of sent) fitsWebhook(e);
  });

  it('bad input: negative, zero, fractional amounts, wrong currency, a CLOSED or PROCESSING card: 400, nothing posted', async () => {
    const { api, customer, usd, card, platformId } = await setup();
    for (const body of [auth(-1), auth(0), auth(1.5), auth(100, 'SHOP', 'EUR'), { amount: 100, currency: { code: 'USD' } }, { amount: 100, currency: { code: 'USD' }, merchant: { descriptor: '' } }]) {
      const res = await api.post(`/sandbox/cards/${card.id}/simulate/authorization`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const pending = (await api.post('/cards', { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [usd], platformCardId: 'pending-001' })).body;
    expect((await api.post(`/sandbox/cards/${pending.id}/simulate/authorization`, auth(100))).status).toBe(400);
    await api.patch(`/cards/${card.id}`, { state: 'CLOSED' });
    for (const kind of ['authorization', 'credit_authorization', 'financial_authorization', 'financial_credit_authorization', 'credit_authorization_advice']) {
      expect((await api.post(`/sandbox/cards/${card.id}/simulate/${kind}`, auth(100))).status, kind).toBe(400);
    }
    expect((await api.post(`/sandbox/cards/${card.id}/simulate/balance_inquiry`, { merchant: { descriptor: 'X' } })).status).toBe(400);
    expect((await api.post('/sandbox/cards/Card:nope/simulate/authorization', auth(100))).status).toBe(404);
    expect((await api.post(`/sandbox/cards/${card.id}/simulate/clearing`, { cardTransactionId: 'CardTransaction:nope', amount: 1 })).status).toBe(404);
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 1_000_00, total: 1_000_00 });
    expect(s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => e.type.startsWith('CARD_TRANSACTION'))).toEqual([]);
  });
});

describe('card simulations: clearing, returns, advice', () => {
  it('clearing at the authorised amount settles; above it takes the over-authorisation pull; 0 expires the hold', async () => {
    const { api, customer, usd, card, platformId } = await setup();
    const a = await simulate(api, card.id, 'authorization', auth(20_00));
    await simulate(api, card.id, 'clearing', { cardTransactionId: a.cardTransactionId, amount: 24_00 });
    const settled = await cardTx(api, a.cardTransactionId!);
    expect(settled).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 24_00 }, pullSummary: { count: 2, totalAmount: 24_00 }, settlementSummary: { count: 1, totalAmount: 24_00 } });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 976_00, total: 976_00 });

    const b = await simulate(api, card.id, 'authorization', auth(30_00));
    await simulate(api, card.id, 'clearing', { cardTransactionId: b.cardTransactionId, amount: 10_00 });
    expect(await cardTx(api, b.cardTransactionId!)).toMatchObject({ status: 'PARTIALLY_SETTLED', settledAmount: { amount: 10_00 } });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 946_00, total: 966_00 });
    await simulate(api, card.id, 'clearing', { cardTransactionId: b.cardTransactionId, amount: 0 });
    expect(await cardTx(api, b.cardTransactionId!)).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 10_00 }, pullSummary: { totalAmount: 10_00 } });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 966_00, total: 966_00 });

    const c = await simulate(api, card.id, 'authorization', auth(5_00));
    await simulate(api, card.id, 'clearing', { cardTransactionId: c.cardTransactionId, amount: 0 });
    expect(await cardTx(api, c.cardTransactionId!)).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 0 } });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 966_00, total: 966_00 });
    const again = await api.post(`/sandbox/cards/${card.id}/simulate/clearing`, { cardTransactionId: c.cardTransactionId, amount: 1 });
    expect(again.status).toBe(400);
    expect((await api.post(`/sandbox/cards/${card.id}/simulate/clearing`, { cardTransactionId: c.cardTransactionId, amount: -1 })).status).toBe(400);
    const types = cardEvents(platformId, b.cardTransactionId!).map((e) => e.type);
    expect(types).toEqual(['CARD_TRANSACTION.AUTHORIZED', 'CARD_TRANSACTION.PARTIALLY_SETTLED', 'CARD_TRANSACTION.SETTLED']);
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('the parent descriptor decides the post-hoc pull of an over-authorisation: 005 pending 30 s, 006 EXCEPTION', async () => {
    const { api, customer, usd, card } = await setup(100_00);
    const delayed = await simulate(api, card.id, 'authorization', auth(10_00, 'DINER 005'));
    await api.advance(31);
    await simulate(api, card.id, 'clearing', { cardTransactionId: delayed.cardTransactionId, amount: 12_00 });
    expect(await cardTx(api, delayed.cardTransactionId!)).toMatchObject({ status: 'SETTLED', pullSummary: { count: 2, totalAmount: 12_00, pendingCount: 1 } });
    await api.advance(31);
    expect((await cardTx(api, delayed.cardTransactionId!)).pullSummary.pendingCount).toBe(0);
    const rejectedPull = await simulate(api, card.id, 'financial_authorization', auth(5_00, 'KIOSK 006'));
    expect((await cardTx(api, rejectedPull.cardTransactionId!)).status).toBe('EXCEPTION');
    expect(await simulate(api, card.id, 'balance_inquiry', { merchant: { descriptor: 'PUMP 002' } })).toMatchObject({ outcome: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
    expect(await simulate(api, card.id, 'credit_authorization', auth(1_00, 'REFUND 003'))).toMatchObject({ outcome: 'DECLINED', declineReason: 'CARD_PAUSED' });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 83_00, total: 83_00 });
  });

  it('an over-authorisation the balance cannot cover: EXCEPTION, the shortfall is not taken, no balance goes negative', async () => {
    const { api, customer, usd, card, platformId } = await setup(50_00);
    const a = await simulate(api, card.id, 'authorization', auth(40_00));
    await simulate(api, card.id, 'clearing', { cardTransactionId: a.cardTransactionId, amount: 90_00 });
    expect(await cardTx(api, a.cardTransactionId!)).toMatchObject({ status: 'EXCEPTION', settledAmount: { amount: 90_00 }, pullSummary: { count: 2, totalAmount: 40_00 } });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 10_00, total: 10_00 });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('a partial return keeps SETTLED with refundedAmount; the rest makes it REFUNDED; a return reversal needs REFUNDED', async () => {
    const { api, customer, usd, card, platformId } = await setup();
    const a = await simulate(api, card.id, 'authorization', auth(15_00));
    const early = await api.post(`/sandbox/cards/${card.id}/simulate/return`, { cardTransactionId: a.cardTransactionId, amount: 1 });
    expect(early.status).toBe(400);
    await simulate(api, card.id, 'clearing', { cardTransactionId: a.cardTransactionId, amount: 15_00 });
    expect((await api.post(`/sandbox/cards/${card.id}/simulate/return_reversal`, { cardTransactionId: a.cardTransactionId })).status).toBe(400);
    await simulate(api, card.id, 'return', { cardTransactionId: a.cardTransactionId, amount: 5_00 });
    expect(await cardTx(api, a.cardTransactionId!)).toMatchObject({ status: 'SETTLED', refundedAmount: { amount: 5_00 }, refundSummary: { count: 1, totalAmount: 5_00 } });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 990_00, total: 990_00 });
    const tooMuch = await api.post(`/sandbox/cards/${card.id}/simulate/return`, { cardTransactionId: a.cardTransactionId, amount: 10_01 });
    expect(tooMuch.status).toBe(400);
    expect((await api.post(`/sandbox/cards/${card.id}/simulate/return`, { cardTransactionId: a.cardTransactionId, amount: 0 })).status).toBe(400);
    await simulate(api, card.id, 'return', { cardTransactionId: a.cardTransactionId, amount: 10_00 });
    expect(await cardTx(api, a.cardTransactionId!)).toMatchObject({ status: 'REFUNDED', refundedAmount: { amount: 15_00 } });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 1_000_00, total: 1_000_00 });
    await simulate(api, card.id, 'return_reversal', { cardTransactionId: a.cardTransactionId });
    expect(await cardTx(api, a.cardTransactionId!)).toMatchObject({ status: 'SETTLED', refundedAmount: { amount: 5_00 } });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 990_00, total: 990_00 });
    const types = cardEvents(platformId, a.cardTransactionId!).map((e) => e.type);
    expect(types).toEqual(['CARD_TRANSACTION.AUTHORIZED', 'CARD_TRANSACTION.SETTLED', 'CARD_TRANSACTION.REFUNDED', 'CARD_TRANSACTION.SETTLED']);
    for (const e of cardEvents(platformId, a.cardTransactionId!)) fitsWebhook(e);
  });

  it('advice re-sizes an open authorisation (up needs funds), only on AUTHORIZED or PARTIALLY_SETTLED', async () => {
    const { api, customer, usd, card } = await setup(100_00);
    const a = await simulate(api, card.id, 'authorization', auth(10_00));
    expect(await simulate(api, card.id, 'authorization_advice', { cardTransactionId: a.cardTransactionId, amount: 20_00 })).toMatchObject({ outcome: 'APPROVED' });
    expect(await cardTx(api, a.cardTransactionId!)).toMatchObject({ authorizedAmount: { amount: 20_00 }, status: 'AUTHORIZED' });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 80_00, total: 100_00 });
    expect(await simulate(api, card.id, 'authorization_advice', { cardTransactionId: a.cardTransactionId, amount: 500_00 })).toMatchObject({ outcome: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
    await simulate(api, card.id, 'authorization_advice', { cardTransactionId: a.cardTransactionId, amount: 5_00 });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 95_00, total: 100_00 });
    await simulate(api, card.id, 'clearing', { cardTransactionId: a.cardTransactionId, amount: 5_00 });
    const late = await api.post(`/sandbox/cards/${card.id}/simulate/authorization_advice`, { cardTransactionId: a.cardTransactionId, amount: 6_00 });
    expect(late.status).toBe(400);
  });

  it('credit, financial and financial-credit variants move money the right way', async () => {
    const { api, customer, usd, card, platformId } = await setup(100_00);
    const credit = await simulate(api, card.id, 'credit_authorization', auth(25_00, 'ACME MARKETPLACE'));
    expect(await cardTx(api, credit.cardTransactionId!)).toMatchObject({ direction: 'CREDIT', status: 'AUTHORIZED' });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 100_00, total: 125_00 });
    await simulate(api, card.id, 'clearing', { cardTransactionId: credit.cardTransactionId, amount: 25_00 });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 125_00, total: 125_00 });
    const atm = await simulate(api, card.id, 'financial_authorization', auth(80_00, 'ATM WITHDRAWAL 24TH ST'));
    expect(await cardTx(api, atm.cardTransactionId!)).toMatchObject({ direction: 'DEBIT', status: 'SETTLED', settledAmount: { amount: 80_00 } });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 45_00, total: 45_00 });
    const push = await simulate(api, card.id, 'financial_credit_authorization', auth(40_00, 'ACME PAYOUTS'));
    expect(await cardTx(api, push.cardTransactionId!)).toMatchObject({ direction: 'CREDIT', status: 'SETTLED' });
    const advice = await simulate(api, card.id, 'credit_authorization_advice', auth(5_00, 'ACME MARKETPLACE'));
    await simulate(api, card.id, 'clearing', { cardTransactionId: advice.cardTransactionId, amount: 0 });
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 85_00, total: 85_00 });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('closing a card reconciles its open authorisations: holds are released', async () => {
    const { api, customer, usd, card } = await setup(100_00);
    const a = await simulate(api, card.id, 'authorization', auth(30_00));
    await api.patch(`/cards/${card.id}`, { state: 'CLOSED' });
    expect((await cardTx(api, a.cardTransactionId!)).status).toBe('SETTLED');
    expect(await balances(api, customer.id, usd)).toEqual({ balance: 100_00, total: 100_00 });
  });
});

describe('card simulations: decisioning', () => {
  it('funding sources are tried in priority order: the first with enough balance wins', async () => {
    const h = await cardholder(s.api, s.sandbox, 20_00);
    const second = extraUsdAccount(s.sandbox, h.platformId, h.customer.id);
    await h.api.post(`/sandbox/internal-accounts/${second}/fund`, { amount: 100_00 });
    const card = await activeCard(h.api, h.customer.id, [h.usd, second]);
    const small = await simulate(h.api, card.id, 'authorization', auth(15_00));
    expect((await cardTx(h.api, small.cardTransactionId!)).accountId).toBe(h.usd);
    const big = await simulate(h.api, card.id, 'authorization', auth(50_00));
    expect((await cardTx(h.api, big.cardTransactionId!)).accountId).toBe(second);
    const tooBig = await simulate(h.api, card.id, 'authorization', auth(60_00));
    expect(tooBig).toMatchObject({ outcome: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
    expect(await balances(h.api, h.customer.id, h.usd)).toEqual({ balance: 5_00, total: 20_00 });
    expect(await balances(h.api, h.customer.id, second)).toEqual({ balance: 50_00, total: 100_00 });
  });

  it('per-transaction, per-day amount and per-day count limits on the UTC day of the sandbox clock; refunds restore nothing the same day', async () => {
    const { api, card } = await setup(1_000_00, { maxSpendPerTransaction: 50_00, maxSpendPerDay: 100_00, maxTransactionsPerDay: 3 });
    expect(card).toMatchObject({ maxSpendPerTransaction: 50_00, maxSpendPerDay: 100_00, maxTransactionsPerDay: 3 });
    // Start just after a UTC midnight so the whole test stays in one day.
    const now = Date.parse((await api.get('/_sandbox/clock')).body.now);
    const nextMidnight = Math.ceil((now + 1) / 86_400_000) * 86_400_000;
    await api.advance((nextMidnight - now) / 1000 + 60);

    expect(await simulate(api, card.id, 'authorization', auth(50_01))).toMatchObject({ outcome: 'DECLINED', declineReason: 'TRANSACTION_LIMIT_EXCEEDED' });
    const a = await simulate(api, card.id, 'authorization', auth(50_00));
    expect(a.outcome).toBe('APPROVED');
    await simulate(api, card.id, 'clearing', { cardTransactionId: a.cardTransactionId, amount: 50_00 });
    await simulate(api, card.id, 'return', { cardTransactionId: a.cardTransactionId, amount: 50_00 });
    const b = await simulate(api, card.id, 'authorization', auth(40_00));
    await simulate(api, card.id, 'clearing', { cardTransactionId: b.cardTransactionId, amount: 0 });
    // 90.00 used today whatever was refunded or expired: 10.01 more is over the day's 100.00.
    expect(await simulate(api, card.id, 'authorization', auth(10_01))).toMatchObject({ outcome: 'DECLINED', declineReason: 'DAILY_SPEND_LIMIT_EXCEEDED' });
    expect((await simulate(api, card.id, 'authorization', auth(1_00))).outcome).toBe('APPROVED');
    expect(await simulate(api, card.id, 'authorization', auth(1_00))).toMatchObject({ outcome: 'DECLINED', declineReason: 'DAILY_TRANSACTION_LIMIT_EXCEEDED' });

    // Across the next UTC midnight, on the clock: capacity is back.
    await api.advance(86_400 - 120);
    expect(await simulate(api, card.id, 'authorization', auth(1_00))).toMatchObject({ outcome: 'DECLINED', declineReason: 'DAILY_TRANSACTION_LIMIT_EXCEEDED' });
    await api.advance(120);
    expect((await simulate(api, card.id, 'authorization', auth(50_00))).outcome).toBe('APPROVED');
    expect((await simulate(api, card.id, 'authorization', auth(50_00))).outcome).toBe('APPROVED');
    expect(await simulate(api, card.id, 'authorization', auth(1))).toMatchObject({ outcome: 'DECLINED', declineReason: 'DAILY_SPEND_LIMIT_EXCEEDED' });

    const cleared = await api.patch(`/cards/${card.id}`, { maxSpendPerDay: null, maxTransactionsPerDay: null });
    expect(cleared.status).toBe(200);
    expect((await simulate(api, card.id, 'authorization', auth(1_00))).outcome).toBe('APPROVED');
  });
});
