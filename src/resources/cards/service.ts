import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, ErrorCode, invalidInput, notFound } from '../../core/errors.js';
import { currencyOf, type Currency } from '../../core/money.js';
import { decodeCursor, encodeCursor } from '../../core/pagination.js';
import { perContext } from '../../core/per-context.js';
import type { SandboxContext } from '../../store/context.js';
import {
  cardEligibleCurrencies,
  decisionOf,
  descriptorRules,
  fundingSourceRules,
  defaultCardSettings,
  ineligibleFundingSourceBySuffix,
  issuanceOf,
  issuanceRules,
  staticPasswordCurrencies,
  suffixOf,
  type DecisionRule,
} from '../../rules/card-rules.js';
import { recordRule } from '../../store/coverage.js';
import { getCustomer, type CustomerRecord } from '../customers/index.js';
import { internalAccountRepo, type InternalAccountRow } from '../internal-accounts/index.js';
import { bucketOf, ledgerBalance, move, worldAccount } from '../ledger/index.js';
import type { Platform } from '../../tenancy/index.js';
import { recordTransaction, updateTransaction } from '../transactions/index.js';
import { fundingSourceGuards } from './guards.js';
import { CardRepo, type CardFilter, type CardRow, type CardTransactionRow, type SimulationRow } from './repo.js';
import type { CardCreateRequest, CardSettingsUpdate, CardUpdateRequest, ListCardsQuery, SimulateAuthorizationRequest } from './schemas.js';

/** Job kind: a `005` card finishes provisioning. */
export const ACTIVATE_CARD_JOB = 'card.activate';
/** Job kind: a delayed (`005`) pull is confirmed. */
export const CONFIRM_PULL_JOB = 'card.confirm-pull';

/** Platform card program settings (`GET/PATCH /_sandbox/cards/settings`). */
export type CardSettings = typeof defaultCardSettings;

const repoOf = perContext((ctx: SandboxContext) => new CardRepo(ctx.db));

const currencyInfo = (code: string): Currency => currencyOf(code) ?? { code, name: code, symbol: '', decimals: 2 };
const money = (amount: number, code: string) => ({ amount, currency: currencyInfo(code) });
const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const digitsOf = (seed: string, length: number) => {
  const hash = createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; out.length < length; i += 1) out += String(hash[i % hash.length]! % 10);
  return out;
};

// ---------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------

function settingsRow(ctx: SandboxContext, platformId: string): { settings: CardSettings; revealKey: string } {
  const repo = repoOf(ctx);
  const row = repo.settings(platformId);
  if (row) return { settings: { ...defaultCardSettings, ...(JSON.parse(row.settings) as Partial<CardSettings>) }, revealKey: row.reveal_key };
  return { settings: { ...defaultCardSettings }, revealKey: '' };
}

/** The platform's card settings (defaults until changed). */
export function cardSettings(ctx: SandboxContext, platformId: string): CardSettings {
  return settingsRow(ctx, platformId).settings;
}

/** Changes the platform's card settings (control plane); returns them whole. */
export function updateCardSettings(ctx: SandboxContext, platformId: string, update: CardSettingsUpdate): CardSettings {
  return ctx.tx(() => {
    const current = settingsRow(ctx, platformId);
    const next: CardSettings = { ...current.settings };
    for (const [key, value] of Object.entries(update)) if (value !== undefined) (next as Record<string, unknown>)[key] = value;
    repoOf(ctx).saveSettings(platformId, JSON.stringify(next), current.revealKey || revealKeyOf(ctx));
    return next;
  });
}

/** A fresh per-platform HMAC key for reveal URLs (random through the id source). */
const revealKeyOf = (ctx: SandboxContext) => sha256(`${ctx.ids.uuid()}${ctx.ids.uuid()}`);

function revealKey(ctx: SandboxContext, platformId: string): { settings: CardSettings; key: string } {
  const current = settingsRow(ctx, platformId);
  if (current.revealKey) return { settings: current.settings, key: current.revealKey };
  const key = revealKeyOf(ctx);
  repoOf(ctx).saveSettings(platformId, JSON.stringify(current.settings), key);
  return { settings: current.settings, key };
}

// ---------------------------------------------------------------------------
// Cards
// ---------------------------------------------------------------------------

/** The contract's `Card` for a stored row (never with a reveal URL). */
export function presentCard(row: CardRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    cardholderId: row.cardholder_id,
    platformCardId: row.platform_card_id,
    state: row.state,
    stateReason: row.state_reason,
    form: row.form,
  };
  if (row.last4 !== null) {
    out.brand = 'VISA';
    out.last4 = row.last4;
    out.expMonth = row.exp_month;
    out.expYear = row.exp_year;
  }
  out.fundingSources = JSON.parse(row.funding_sources) as string[];
  out.maxSpendPerTransaction = row.max_spend_per_transaction;
  // API.md "Card": the daily limits are card fields; the contract's Card does not list them yet.
  if (row.max_spend_per_day !== null) out.maxSpendPerDay = row.max_spend_per_day;
  if (row.max_transactions_per_day !== null) out.maxTransactionsPerDay = row.max_transactions_per_day;
  out.currency = row.currency;
  out.processorRef = `card_${row.id.slice(-12).replace(/-/g, '')}`;
  out.issuerRef = `sbx_issuer_${row.id.slice(-8)}`;
  out.createdAt = row.created_at;
  out.updatedAt = row.updated_at;
  return out;
}

/** A card row of the platform, or `404 NOT_FOUND` (another platform's card included). */
export function getCardForPlatform(ctx: SandboxContext, platformId: string, cardId: string): CardRow {
  const row = repoOf(ctx).byId(platformId, cardId);
  if (!row) throw notFound('REFERENCE_NOT_FOUND', `No card ${cardId} on this platform.`);
  return row;
}

/** A card of the platform in the contract's shape, or undefined: the lookup other areas use (delegated keys). */
export function findCardForPlatform(ctx: SandboxContext, platformId: string, cardId: string): Record<string, unknown> | undefined {
  const row = repoOf(ctx).byId(platformId, cardId);
  return row ? presentCard(row) : undefined;
}

/** `GET /cards/{id}`. */
export function getCard(ctx: SandboxContext, platformId: string, cardId: string): Record<string, unknown> {
  return presentCard(getCardForPlatform(ctx, platformId, cardId));
}

const ineligible = (message: string, field: string) =>
  new ApiError(400, 'FUNDING_SOURCE_INELIGIBLE', message, { errors: [{ field, message }] });

/**
 * Checks funding sources: each an ACTIVE internal account of the cardholder, in a card-eligible
 * currency, one currency for all (and `currency` when the card has one), no repeats; the
 * sandbox suffix rule of the account id applies. Returns the currency.
 */
function checkFundingSources(ctx: SandboxContext, platformId: string, cardholderId: string, ids: readonly string[], currency?: string): string {
  const seen = new Set<string>();
  let code = currency;
  ids.forEach((id, i) => {
    const field = `fundingSources.${i}`;
    if (seen.has(id)) throw invalidInput('A funding source is listed twice.', [{ field, constraint: { uniqueItems: true }, message: `${id} is listed twice.` }]);
    seen.add(id);
    const account = internalAccountRepo(ctx).byId(platformId, id);
    if (!account || account.customer_id !== cardholderId) throw ineligible(`Funding source ${id} is not an internal account of cardholder ${cardholderId}.`, field);
    if (account.status !== 'ACTIVE') throw ineligible(`Funding source ${id} is ${account.status}.`, field);
    if (!cardEligibleCurrencies.has(account.currency)) {
      throw ineligible(`Funding source ${id} holds ${account.currency}, which is not card-eligible (${[...cardEligibleCurrencies].join(', ')}).`, field);
    }
    if (code !== undefined && account.currency !== code) throw ineligible(`Funding source ${id} holds ${account.currency}; the card's funding sources must all be in ${code}.`, field);
    code = account.currency;
    // sandbox-rules.md "Cards": funding-source binding by the suffix of the internal account id.
    const reason = ineligibleFundingSourceBySuffix[suffixOf(id)];
    recordRule(ctx, platformId, fundingSourceRules.of(suffixOf(id)));
    if (reason) throw ineligible(`Funding source ${id} is ineligible: ${reason}.`, field);
  });
  return code!;
}

function checkLimitsSupported(settings: CardSettings, input: Record<string, unknown>): void {
  if (settings.authorizationDecisions === 'SERVICE') return;
  const set = ['maxSpendPerTransaction', 'maxSpendPerDay', 'maxTransactionsPerDay'].filter((k) => input[k] !== undefined && input[k] !== null);
  if (set.length > 0) {
    throw invalidInput('Spend limits are supported only in card programs where the service makes the authorisation decision.', set.map((field) => ({ field, message: 'Not supported by an issuer-decides card program.' })));
  }
}

const stateEvent = (ctx: SandboxContext, row: CardRow) => ctx.outbox.append(row.platform_id, 'CARD.STATE_CHANGE', row.id, presentCard(row));

/** Activation: `ACTIVE` with `last4` (from the deciding suffix when it is digits), `expMonth`, `expYear` three years on. */
function activate(ctx: SandboxContext, row: CardRow, decidingId: string): void {
  const suffix = suffixOf(decidingId);
  const now = new Date(ctx.clock.now());
  row.state = 'ACTIVE';
  row.state_reason = null;
  row.last4 = /^\d{3}$/.test(suffix) ? `4${suffix}` : digitsOf(row.id, 4);
  row.exp_month = now.getUTCMonth() + 1;
  row.exp_year = now.getUTCFullYear() + 3;
  row.updated_at = ctx.clock.iso();
}

/** `POST /cards`: a card in `PROCESSING`; the issuance suffix rule then decides (sandbox-rules.md "Cards"). */
export function createCard(ctx: SandboxContext, platform: Platform, input: CardCreateRequest): Record<string, unknown> {
  return ctx.tx(() => {
    let holder: CustomerRecord;
    try {
      holder = getCustomer(ctx, platform.id, input.cardholderId);
    } catch {
      throw invalidInput(`No customer ${input.cardholderId} on this platform.`, [{ field: 'cardholderId', message: 'Pass the id of a customer of this platform.' }]);
    }
    if (holder.kycStatus !== 'APPROVED') {
      throw new ApiError(400, 'CARDHOLDER_KYC_NOT_APPROVED', `Cardholder ${holder.id} has kycStatus ${holder.kycStatus}; cards need APPROVED.`);
    }
    const settings = cardSettings(ctx, platform.id);
    checkLimitsSupported(settings, input);
    const currency = checkFundingSources(ctx, platform.id, holder.id, input.fundingSources);
    // The static 3-D Secure password: only EU (EUR) card programs take one; it is forwarded and never stored.
    if (input.threeDSecurePassword !== undefined && !staticPasswordCurrencies.has(currency)) {
      throw invalidInput(`A static 3-D Secure password is not supported for ${currency} cards.`, [
        { field: 'threeDSecurePassword', message: 'Only EU (EUR) card programs accept a static password; omit it to have one generated.' },
      ]);
    }
    const repo = repoOf(ctx);
    // API.md "Limits", cards per platform: a live-card maximum, optionally one per cardholder.
    const live = repo.live(platform.id, holder.id);
    if (live.platform >= settings.maxLiveCards) {
      throw new ApiError(409, 'CARD_LIMIT_REACHED', `The platform holds its maximum of ${settings.maxLiveCards} live cards; close one to free a slot.`);
    }
    if (settings.oneCardPerCardholder && live.cardholder > 0) {
      throw new ApiError(409, 'CARD_LIMIT_REACHED', `Cardholder ${holder.id} already holds a live card and this platform allows one per cardholder.`);
    }
    const id = ctx.ids.next('Card');
    const now = ctx.clock.iso();
    const row: CardRow = {
      id,
      platform_id: platform.id,
      cardholder_id: holder.id,
      platform_card_id: input.platformCardId ?? `card-${id.slice(-12)}`,
      state: 'PROCESSING',
      state_reason: null,
      form: input.form,
      currency,
      funding_sources: JSON.stringify(input.fundingSources),
      max_spend_per_transaction: input.maxSpendPerTransaction ?? null,
      max_spend_per_day: input.maxSpendPerDay ?? null,
      max_transactions_per_day: input.maxTransactionsPerDay ?? null,
      last4: null,
      exp_month: null,
      exp_year: null,
      created_at: now,
      updated_at: now,
    };
    repo.insert(row);
    const created = presentCard(row);
    // The issuance suffix: of platformCardId when given, else of the cardholder id.
    const decidingId = input.platformCardId ?? holder.id;
    const outcome = issuanceOf(decidingId);
    recordRule(ctx, platform.id, issuanceRules.of(suffixOf(decidingId)));
    if (outcome.timing === 'now') {
      if (outcome.result === 'ACTIVE') activate(ctx, row, decidingId);
      else Object.assign(row, { state: 'CLOSED', state_reason: 'ISSUER_REJECTED', updated_at: ctx.clock.iso() });
      repo.update(row, false);
      stateEvent(ctx, row);
    } else if (outcome.timing === 'later') {
      ctx.scheduler.schedule(platform.id, ACTIVATE_CARD_JOB, outcome.delaySeconds! * 1000, { cardId: id, decidingId });
    }
    // The create call answers PROCESSING (API.md "Card state"); the outcome shows on the next read and in the webhook.
    return created;
  });
}

/** The job of a delayed issuance: activates the card if it is still PROCESSING. */
export function activateLater(ctx: SandboxContext, platformId: string, cardId: string, decidingId: string): void {
  const row = repoOf(ctx).byId(platformId, cardId);
  if (!row || row.state !== 'PROCESSING') return;
  activate(ctx, row, decidingId);
  repoOf(ctx).update(row, false);
  stateEvent(ctx, row);
}

/** `GET /cards`: filters, cursor pagination on the id (time-ordered), `sortOrder`. */
export function listCards(ctx: SandboxContext, platformId: string, query: ListCardsQuery): { data: Record<string, unknown>[]; hasMore: boolean; nextCursor?: string } {
  const filter: CardFilter = { cardholderId: query.cardholderId, accountId: query.accountId, platformCardId: query.platformCardId, state: query.state };
  const rows = repoOf(ctx).page(platformId, filter, decodeCursor(query.cursor), query.limit + 1, query.sortOrder);
  const hasMore = rows.length > query.limit;
  const page = hasMore ? rows.slice(0, query.limit) : rows;
  const out: { data: Record<string, unknown>[]; hasMore: boolean; nextCursor?: string } = { data: page.map(presentCard), hasMore };
  if (hasMore) out.nextCursor = encodeCursor(page[page.length - 1]!.id);
  return out;
}

/** API.md "Card state": ACTIVE <-> FROZEN, ACTIVE | FROZEN -> CLOSED. */
const allowed: Readonly<Record<string, readonly string[]>> = { ACTIVE: ['FROZEN', 'CLOSED'], FROZEN: ['ACTIVE', 'CLOSED'] };

/** `PATCH /cards/{id}`: state machine, funding-source replacement, limits. */
export function updateCard(ctx: SandboxContext, platform: Platform, cardId: string, input: CardUpdateRequest): Record<string, unknown> {
  return ctx.tx(() => {
    const repo = repoOf(ctx);
    const row = getCardForPlatform(ctx, platform.id, cardId);
    if (row.state === 'CLOSED') {
      if (input.state === 'CLOSED') throw new ApiError(409, 'CARD_ALREADY_CLOSED', `Card ${cardId} is already CLOSED.`);
      if (input.state !== undefined) {
        throw new ApiError(409, 'INVALID_STATE_TRANSITION', `A CLOSED card cannot move to ${input.state}; CLOSED is terminal.`, { from: 'CLOSED', to: input.state });
      }
      throw new ApiError(409, 'CARD_NOT_MUTABLE', `Card ${cardId} is CLOSED and can no longer be changed.`);
    }
    if (input.state === 'CLOSED') {
      const extra = (['fundingSources', 'maxSpendPerTransaction', 'maxSpendPerDay', 'maxTransactionsPerDay'] as const).filter((k) => input[k] !== undefined);
      if (extra.length > 0) throw invalidInput('state: CLOSED cannot be combined with other changes.', extra.map((field) => ({ field, message: 'Not allowed with state: CLOSED.' })));
    }
    if (input.state !== undefined && !(allowed[row.state] ?? []).includes(input.state)) {
      throw new ApiError(409, 'INVALID_STATE_TRANSITION', `A ${row.state} card cannot move to ${input.state}.`, { from: row.state, to: input.state });
    }
    checkLimitsSupported(cardSettings(ctx, platform.id), input);
    let sourcesChanged = false;
    if (input.fundingSources !== undefined) {
      // An embedded-wallet source is bound here; it funds authorisations once the cardholder has
      // made an ACTIVE delegated key for it (POST /auth/delegated-keys, the wallet's guard).
      checkFundingSources(ctx, platform.id, row.cardholder_id, input.fundingSources, row.currency);
      row.funding_sources = JSON.stringify(input.fundingSources);
      sourcesChanged = true;
    }
    if (input.maxSpendPerTransaction !== undefined) row.max_spend_per_transaction = input.maxSpendPerTransaction;
    if (input.maxSpendPerDay !== undefined) row.max_spend_per_day = input.maxSpendPerDay;
    if (input.maxTransactionsPerDay !== undefined) row.max_transactions_per_day = input.maxTransactionsPerDay;
    const stateChanged = input.state !== undefined;
    if (input.state !== undefined) {
      row.state = input.state;
      row.state_reason = input.state === 'CLOSED' ? 'CLOSED_BY_PLATFORM' : null;
      // Closing reconciles every open authorisation to a terminal state (holds released).
      if (input.state === 'CLOSED') for (const tx of repo.openTransactions(row.id)) expire(ctx, tx);
    }
    row.updated_at = ctx.clock.iso();
    repo.update(row, sourcesChanged);
    if (stateChanged) stateEvent(ctx, row);
    if (sourcesChanged) ctx.outbox.append(platform.id, 'CARD.FUNDING_SOURCE_CHANGE', row.id, presentCard(row));
    return presentCard(row);
  });
}

/**
 * `POST /cards/{id}/reveal`: a fresh signed URL of the sandbox's card frame, valid a few
 * minutes on the sandbox clock. Only a SHA-256 of the URL is kept (the audit log); the URL is
 * never stored, returned by a GET, or logged.
 */
export function revealCard(ctx: SandboxContext, platform: Platform, cardId: string, origin: string): { panEmbedUrl: string; expiresAt: string } {
  return ctx.tx(() => {
    const row = getCardForPlatform(ctx, platform.id, cardId);
    const { settings, key } = revealKey(ctx, platform.id);
    if (settings.authorizationDecisions === 'ISSUER') {
      throw new ApiError(409, ErrorCode.CONFLICT, 'In an issuer-decides card program the reveal goes through the issuer\'s challenge-based hosted flow.');
    }
    if (row.state !== 'ACTIVE' && row.state !== 'FROZEN') throw new ApiError(409, ErrorCode.CONFLICT, `Card ${cardId} is ${row.state}; only ACTIVE or FROZEN cards can be revealed.`);
    const expiresMs = ctx.clock.now() + settings.revealTtlSeconds * 1000;
    const exp = String(Math.floor(expiresMs / 1000));
    const nonce = ctx.ids.uuid();
    const sig = createHmac('sha256', key).update(`${row.id}.${exp}.${nonce}`).digest('base64url');
    const panEmbedUrl = `${origin}/embed/cards/${encodeURIComponent(row.id)}?exp=${exp}&n=${nonce}&sig=${sig}`;
    const expiresAt = new Date(Number(exp) * 1000).toISOString();
    repoOf(ctx).auditReveal(ctx.ids.next('CardReveal'), platform.id, row.id, platform.clientId, sha256(panEmbedUrl), expiresAt, ctx.clock.iso());
    return { panEmbedUrl, expiresAt };
  });
}

/** What the card frame shows for a valid, unexpired reveal URL; undefined otherwise. */
export function openRevealFrame(ctx: SandboxContext, cardId: string, exp: string, nonce: string, sig: string): { pan: string; cvv: string; expMonth: number; expYear: number } | undefined {
  if (!/^\d{1,12}$/.test(exp) || Number(exp) * 1000 <= ctx.clock.now()) return undefined;
  const card = repoOf(ctx).anywhere(cardId);
  if (!card || card.last4 === null) return undefined;
  const key = settingsRow(ctx, card.platform_id).revealKey;
  if (!key) return undefined;
  const expected = Buffer.from(createHmac('sha256', key).update(`${cardId}.${exp}.${nonce}`).digest('base64url'));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  return { pan: `400000${digitsOf(card.id, 6)}${card.last4}`, cvv: digitsOf(`${card.id}:cvv`, 3), expMonth: card.exp_month!, expYear: card.exp_year! };
}

// ---------------------------------------------------------------------------
// Card transactions and simulations
// ---------------------------------------------------------------------------

/** The contract's `CardTransaction` for a row. */
export function presentCardTransaction(row: CardTransactionRow): Record<string, unknown> {
  return {
    type: 'CARD',
    id: row.id,
    cardId: row.card_id,
    customerId: row.customer_id,
    platformCustomerId: row.platform_customer_id,
    issuerTransactionToken: row.token,
    status: row.status,
    direction: row.direction,
    merchant: JSON.parse(row.merchant) as Record<string, unknown>,
    authorizedAmount: money(row.authorized, row.currency),
    settledAmount: money(row.settled, row.currency),
    refundedAmount: money(row.refunded, row.currency),
    accountId: row.account_id,
    pullSummary: { count: row.pull_count, totalAmount: row.pulled, pendingCount: row.pull_pending },
    refundSummary: { count: row.refund_count, totalAmount: row.refunded },
    settlementSummary: { count: row.settle_count, totalAmount: row.settled },
    authorizedAt: row.authorized_at,
    lastEventAt: row.last_event_at,
  };
}

/** Writes a changed card transaction and its record in the transactions area (status changes fire CARD_TRANSACTION.*). */
function saveTransaction(ctx: SandboxContext, row: CardTransactionRow): void {
  row.last_event_at = ctx.clock.iso();
  repoOf(ctx).updateTransaction(row);
  updateTransaction(ctx, row.platform_id, row.id, presentCardTransaction(row));
}

const held = (row: CardTransactionRow) => bucketOf(row.account_id, row.direction === 'DEBIT' ? 'held' : 'incoming');

/** Releases what a transaction still holds (authorisation expiry): debits back to available, credits back to the world. */
function release(ctx: SandboxContext, row: CardTransactionRow): void {
  if (row.held === 0) return;
  if (row.direction === 'DEBIT') {
    move(ctx, row.platform_id, row.id, held(row), row.account_id, row.currency, row.held);
    row.pulled -= row.held;
  } else {
    move(ctx, row.platform_id, row.id, held(row), worldAccount(row.currency), row.currency, row.held);
  }
  row.held = 0;
}

/** Authorisation expiry: what is held is released, nothing is posted, the transaction closes. */
function expire(ctx: SandboxContext, row: CardTransactionRow): void {
  release(ctx, row);
  row.status = 'SETTLED';
  saveTransaction(ctx, row);
}

/** The card transaction a simulation refers to, on this card, or `404 TRANSACTION_NOT_FOUND`. */
function transactionOf(ctx: SandboxContext, card: CardRow, id: string): CardTransactionRow {
  const row = repoOf(ctx).transaction(card.platform_id, id);
  if (!row || row.card_id !== card.id) throw notFound('TRANSACTION_NOT_FOUND', `No card transaction ${id} on card ${card.id}.`);
  return row;
}

const wrongState = (row: CardTransactionRow, needed: string) =>
  invalidInput(`Card transaction ${row.id} is ${row.status}; this message needs ${needed}.`, [{ field: 'cardTransactionId', message: `The transaction must be ${needed}.` }]);

/** A card that can receive network messages: ACTIVE or FROZEN (a FROZEN card declines, it does not 400). */
function transactableCard(ctx: SandboxContext, platformId: string, cardId: string): CardRow {
  const card = getCardForPlatform(ctx, platformId, cardId);
  if (card.state !== 'ACTIVE' && card.state !== 'FROZEN') {
    throw invalidInput(`Card ${cardId} is ${card.state} and cannot transact.`, [{ field: 'id', message: 'Simulate against an ACTIVE or FROZEN card.' }]);
  }
  return card;
}

const utcDay = (ctx: SandboxContext) => ctx.clock.iso().slice(0, 10);

/** The internal account `id` if it can fund the card now: ACTIVE and let through by every guard. */
function usableSource(ctx: SandboxContext, card: CardRow, id: string): InternalAccountRow | undefined {
  const account = internalAccountRepo(ctx).byId(card.platform_id, id);
  if (account?.status !== 'ACTIVE') return undefined;
  return fundingSourceGuards.every((guard) => guard(ctx, card.platform_id, card.id, account)) ? account : undefined;
}

/** Result of decisioning: the funding source chosen, or why it was declined. */
type Decision = { approved: true; accountId: string } | { approved: false; reason: string };

/**
 * Authorisation decisioning (API.md "Cards"): state (FROZEN declines), the descriptor suffix,
 * the card's limits on the sandbox clock's UTC day (SERVICE programs), then the funding sources
 * in priority order: the first ACTIVE one (an embedded wallet only with an ACTIVE delegated key)
 * whose available balance covers the amount wins.
 */
function decide(ctx: SandboxContext, card: CardRow, amount: number, rule: DecisionRule, debit: boolean, countsTransaction: boolean): Decision {
  if (card.state === 'FROZEN' || rule.declineReason === 'CARD_PAUSED') return { approved: false, reason: 'CARD_PAUSED' };
  if (rule.declineReason) return { approved: false, reason: rule.declineReason };
  const sources = JSON.parse(card.funding_sources) as string[];
  if (!debit) {
    const first = sources.find((id) => usableSource(ctx, card, id) !== undefined);
    return first ? { approved: true, accountId: first } : { approved: false, reason: 'FUNDING_SOURCE_UNAVAILABLE' };
  }
  if (cardSettings(ctx, card.platform_id).authorizationDecisions === 'SERVICE') {
    if (card.max_spend_per_transaction !== null && amount > card.max_spend_per_transaction) return { approved: false, reason: 'TRANSACTION_LIMIT_EXCEEDED' };
    const usage = repoOf(ctx).usage(card.id, utcDay(ctx));
    if (card.max_spend_per_day !== null && usage.amount + amount > card.max_spend_per_day) return { approved: false, reason: 'DAILY_SPEND_LIMIT_EXCEEDED' };
    if (countsTransaction && card.max_transactions_per_day !== null && usage.count + 1 > card.max_transactions_per_day) {
      return { approved: false, reason: 'DAILY_TRANSACTION_LIMIT_EXCEEDED' };
    }
  }
  for (const id of sources) {
    if (usableSource(ctx, card, id) && ledgerBalance(ctx, id) >= amount) return { approved: true, accountId: id };
  }
  return { approved: false, reason: 'INSUFFICIENT_FUNDS' };
}

/** The 202 body of every simulation. */
export interface SimulationResult {
  issuerTransactionToken: string;
}

function recordSimulation(ctx: SandboxContext, card: CardRow, kind: string, token: string, outcome: Decision | true, transactionId: string | null): SimulationResult {
  const row: SimulationRow = {
    token,
    platform_id: card.platform_id,
    card_id: card.id,
    kind,
    outcome: outcome === true || outcome.approved ? 'APPROVED' : 'DECLINED',
    decline_reason: outcome !== true && !outcome.approved ? outcome.reason : null,
    card_transaction_id: transactionId,
    created_at: ctx.clock.iso(),
  };
  repoOf(ctx).recordSimulation(row);
  return { issuerTransactionToken: token };
}

/** Kinds of simulated messages that open a new card transaction. */
export type OpeningKind = 'authorization' | 'financial_authorization' | 'credit_authorization' | 'financial_credit_authorization' | 'credit_authorization_advice';

/**
 * Authorization-family simulations. A debit approval holds the amount on the chosen funding
 * source (financial ones post it at once); a credit arrives as incoming funds (financial ones
 * land at once). Declines move nothing and open no transaction.
 */
export function simulateOpening(ctx: SandboxContext, platform: Platform, cardId: string, kind: OpeningKind, input: SimulateAuthorizationRequest): SimulationResult {
  return ctx.tx(() => {
    const card = transactableCard(ctx, platform.id, cardId);
    if (input.currency.code !== card.currency) {
      throw invalidInput(`Card ${cardId} transacts in ${card.currency}, not ${input.currency.code}.`, [{ field: 'currency.code', constraint: { enum: [card.currency] }, message: `Use ${card.currency}.` }]);
    }
    const token = ctx.ids.uuid();
    const debit = kind === 'authorization' || kind === 'financial_authorization';
    const financial = kind === 'financial_authorization' || kind === 'financial_credit_authorization';
    const rule = decisionOf(input.merchant.descriptor);
    recordRule(ctx, platform.id, descriptorRules.of(suffixOf(input.merchant.descriptor)));
    const decision = decide(ctx, card, input.amount, rule, debit, true);
    if (!decision.approved) return recordSimulation(ctx, card, kind, token, decision, null);

    const holder = getCustomer(ctx, platform.id, card.cardholder_id);
    const now = ctx.clock.iso();
    const row: CardTransactionRow = {
      id: ctx.ids.next('CardTransaction'),
      platform_id: platform.id,
      card_id: card.id,
      account_id: decision.accountId,
      customer_id: holder.id,
      platform_customer_id: holder.platformCustomerId,
      direction: debit ? 'DEBIT' : 'CREDIT',
      status: 'AUTHORIZED',
      currency: card.currency,
      merchant: JSON.stringify(input.merchant),
      token,
      authorized: input.amount,
      held: 0,
      settled: 0,
      refunded: 0,
      last_refund: 0,
      pulled: 0,
      pull_count: 0,
      pull_pending: 0,
      settle_count: 0,
      refund_count: 0,
      authorized_at: now,
      last_event_at: now,
    };
    if (debit) {
      repoOf(ctx).addUsage(card.id, utcDay(ctx), input.amount, 1);
      row.pulled = input.amount;
      row.pull_count = 1;
      if (financial) {
        move(ctx, platform.id, row.id, row.account_id, worldAccount(row.currency), row.currency, input.amount);
        Object.assign(row, { status: 'SETTLED', settled: input.amount, settle_count: 1 });
      } else {
        move(ctx, platform.id, row.id, row.account_id, held(row), row.currency, input.amount);
        row.held = input.amount;
      }
      if (rule.pull === 'delayed') {
        row.pull_pending = 1;
        ctx.scheduler.schedule(platform.id, CONFIRM_PULL_JOB, rule.delaySeconds! * 1000, { cardTransactionId: row.id });
      }
    } else if (financial) {
      move(ctx, platform.id, row.id, worldAccount(row.currency), row.account_id, row.currency, input.amount);
      Object.assign(row, { status: 'SETTLED', settled: input.amount, settle_count: 1 });
    } else {
      move(ctx, platform.id, row.id, worldAccount(row.currency), held(row), row.currency, input.amount);
      row.held = input.amount;
    }
    repoOf(ctx).insertTransaction(row);
    recordTransaction(ctx, platform.id, { ...presentCardTransaction(row), type: 'CARD', status: row.status, customerId: row.customer_id, platformCustomerId: row.platform_customer_id });
    // `006`: the pull went through but its confirmation reports FAILED: the high-urgency EXCEPTION.
    if (rule.pull === 'failed') {
      row.status = 'EXCEPTION';
      saveTransaction(ctx, row);
    }
    return recordSimulation(ctx, card, kind, token, decision, row.id);
    // The card, the currency and the holder are checked and the decision made (an approved debit
    // has the funds its posting needs) before the first write: no savepoint in a commit group.
  }, { checksFirst: true });
}

/** The job of a delayed pull: PENDING becomes CONFIRMED. */
export function confirmPull(ctx: SandboxContext, platformId: string, cardTransactionId: string): void {
  const row = repoOf(ctx).transaction(platformId, cardTransactionId);
  if (!row || row.pull_pending === 0) return;
  row.pull_pending -= 1;
  saveTransaction(ctx, row);
}

/** `simulate/balance_inquiry`: a zero-amount authorisation; state and descriptor decide, nothing moves. */
export function simulateBalanceInquiry(ctx: SandboxContext, platform: Platform, cardId: string, merchant: { descriptor: string }): SimulationResult {
  return ctx.tx(() => {
    const card = transactableCard(ctx, platform.id, cardId);
    recordRule(ctx, platform.id, descriptorRules.of(suffixOf(merchant.descriptor)));
    const decision = decide(ctx, card, 0, decisionOf(merchant.descriptor), true, false);
    return recordSimulation(ctx, card, 'balance_inquiry', ctx.ids.uuid(), decision, null);
  }, { checksFirst: true });
}

/**
 * `simulate/clearing`: posts `amount` against an open transaction. What is held is posted
 * first; above it, the over-authorisation path pulls the difference from the same funding
 * source (if its balance does not cover it, the network still settled: EXCEPTION, the operator
 * absorbs the shortfall, no balance goes negative). Below what is held, the transaction is
 * PARTIALLY_SETTLED; `amount: 0` is an authorisation expiry.
 */
export function simulateClearing(ctx: SandboxContext, platform: Platform, cardId: string, input: { cardTransactionId: string; amount: number }): SimulationResult {
  return ctx.tx(() => {
    const card = getCardForPlatform(ctx, platform.id, cardId);
    const row = transactionOf(ctx, card, input.cardTransactionId);
    if (row.status !== 'AUTHORIZED' && row.status !== 'PARTIALLY_SETTLED') throw wrongState(row, 'AUTHORIZED or PARTIALLY_SETTLED');
    const token = ctx.ids.uuid();
    if (input.amount === 0) {
      expire(ctx, row);
      return recordSimulation(ctx, card, 'clearing', token, true, row.id);
    }
    const fromHold = Math.min(input.amount, row.held);
    const extra = input.amount - fromHold;
    const final = input.amount >= row.held;
    const destination = row.direction === 'DEBIT' ? worldAccount(row.currency) : row.account_id;
    if (fromHold > 0) move(ctx, platform.id, row.id, held(row), destination, row.currency, fromHold);
    row.held -= fromHold;
    row.settled += input.amount;
    row.settle_count += 1;
    row.status = final ? 'SETTLED' : 'PARTIALLY_SETTLED';
    if (extra > 0) {
      if (row.direction === 'CREDIT') {
        move(ctx, platform.id, row.id, worldAccount(row.currency), row.account_id, row.currency, extra);
      } else {
        // Over-authorisation: a post-hoc pull; the parent's descriptor suffix decides how it goes.
        const rule = decisionOf((JSON.parse(row.merchant) as { descriptor: string }).descriptor);
        row.pull_count += 1;
        if (ledgerBalance(ctx, row.account_id) >= extra) {
          move(ctx, platform.id, row.id, row.account_id, worldAccount(row.currency), row.currency, extra);
          row.pulled += extra;
          if (rule.pull === 'delayed') {
            row.pull_pending += 1;
            ctx.scheduler.schedule(platform.id, CONFIRM_PULL_JOB, rule.delaySeconds! * 1000, { cardTransactionId: row.id });
          }
          if (rule.pull === 'failed') row.status = 'EXCEPTION';
        } else {
          row.status = 'EXCEPTION';
        }
      }
    }
    saveTransaction(ctx, row);
    return recordSimulation(ctx, card, 'clearing', token, true, row.id);
  });
}

/** `simulate/authorization_advice`: re-sizes an open debit authorisation to a new total; an increase needs funds and limits. */
export function simulateAdvice(ctx: SandboxContext, platform: Platform, cardId: string, input: { cardTransactionId: string; amount: number }): SimulationResult {
  return ctx.tx(() => {
    const card = getCardForPlatform(ctx, platform.id, cardId);
    const row = transactionOf(ctx, card, input.cardTransactionId);
    if (row.status !== 'AUTHORIZED' && row.status !== 'PARTIALLY_SETTLED') throw wrongState(row, 'AUTHORIZED or PARTIALLY_SETTLED');
    if (row.direction !== 'DEBIT') throw invalidInput(`Card transaction ${row.id} is a credit; advice re-sizes debit authorisations.`, [{ field: 'cardTransactionId', message: 'Use a debit authorisation.' }]);
    const token = ctx.ids.uuid();
    const newHold = Math.max(0, input.amount - row.settled);
    const delta = newHold - row.held;
    if (delta > 0) {
      const limits = cardSettings(ctx, platform.id).authorizationDecisions === 'SERVICE';
      const usage = repoOf(ctx).usage(card.id, utcDay(ctx));
      let reason: string | undefined;
      if (card.state === 'FROZEN') reason = 'CARD_PAUSED';
      else if (limits && card.max_spend_per_transaction !== null && input.amount > card.max_spend_per_transaction) reason = 'TRANSACTION_LIMIT_EXCEEDED';
      else if (limits && card.max_spend_per_day !== null && usage.amount + delta > card.max_spend_per_day) reason = 'DAILY_SPEND_LIMIT_EXCEEDED';
      else if (ledgerBalance(ctx, row.account_id) < delta) reason = 'INSUFFICIENT_FUNDS';
      if (reason) return recordSimulation(ctx, card, 'authorization_advice', token, { approved: false, reason }, row.id);
      move(ctx, platform.id, row.id, row.account_id, held(row), row.currency, delta);
      repoOf(ctx).addUsage(card.id, utcDay(ctx), delta, 0);
    } else if (delta < 0) {
      move(ctx, platform.id, row.id, held(row), row.account_id, row.currency, -delta);
    }
    row.held = newHold;
    row.pulled += delta;
    row.authorized = input.amount;
    saveTransaction(ctx, row);
    return recordSimulation(ctx, card, 'authorization_advice', token, true, row.id);
  });
}

/** `simulate/return`: refunds up to the net settled amount; a full refund of a SETTLED parent makes it REFUNDED. */
export function simulateReturn(ctx: SandboxContext, platform: Platform, cardId: string, input: { cardTransactionId: string; amount: number }): SimulationResult {
  return ctx.tx(() => {
    const card = getCardForPlatform(ctx, platform.id, cardId);
    const row = transactionOf(ctx, card, input.cardTransactionId);
    if (row.direction !== 'DEBIT' || row.settle_count === 0 || (row.status !== 'SETTLED' && row.status !== 'PARTIALLY_SETTLED')) {
      throw wrongState(row, 'a settled debit (SETTLED or PARTIALLY_SETTLED)');
    }
    const net = row.settled - row.refunded;
    if (input.amount > net) {
      throw invalidInput(`The return of ${input.amount} is above the net settled amount ${net}.`, [{ field: 'amount', constraint: { maximum: net }, message: `At most ${net}.` }]);
    }
    move(ctx, platform.id, row.id, worldAccount(row.currency), row.account_id, row.currency, input.amount);
    row.refunded += input.amount;
    row.last_refund = input.amount;
    row.refund_count += 1;
    if (row.status === 'SETTLED' && row.refunded === row.settled) row.status = 'REFUNDED';
    saveTransaction(ctx, row);
    return recordSimulation(ctx, card, 'return', ctx.ids.uuid(), true, row.id);
  });
}

/**
 * `simulate/return_reversal`: undoes the latest return of a REFUNDED parent (back to SETTLED).
 * If the funding source no longer covers it, nothing moves and the parent is EXCEPTION.
 */
export function simulateReturnReversal(ctx: SandboxContext, platform: Platform, cardId: string, input: { cardTransactionId: string }): SimulationResult {
  return ctx.tx(() => {
    const card = getCardForPlatform(ctx, platform.id, cardId);
    const row = transactionOf(ctx, card, input.cardTransactionId);
    if (row.status !== 'REFUNDED') throw wrongState(row, 'REFUNDED');
    if (ledgerBalance(ctx, row.account_id) >= row.last_refund) {
      move(ctx, platform.id, row.id, row.account_id, worldAccount(row.currency), row.currency, row.last_refund);
      row.refunded -= row.last_refund;
      row.last_refund = 0;
      row.status = 'SETTLED';
    } else {
      row.status = 'EXCEPTION';
    }
    saveTransaction(ctx, row);
    return recordSimulation(ctx, card, 'return_reversal', ctx.ids.uuid(), true, row.id);
  });
}

/** What came of one simulated message (control plane): outcome, decline reason, card transaction. */
export function simulationOutcome(ctx: SandboxContext, platformId: string, token: string): Record<string, unknown> {
  const row = repoOf(ctx).simulation(platformId, token);
  if (!row) throw notFound(ErrorCode.NOT_FOUND, `No card simulation ${token} on this platform.`);
  return {
    issuerTransactionToken: row.token,
    cardId: row.card_id,
    kind: row.kind,
    outcome: row.outcome,
    declineReason: row.decline_reason,
    cardTransactionId: row.card_transaction_id,
    createdAt: row.created_at,
  };
}

/** Wipes a platform's cards (sandbox reset). */
export function removePlatformCards(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}
