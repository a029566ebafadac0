import { expect } from 'vitest';
import { WEBHOOK_TYPES } from '../../src/events/webhook-types.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { internalAccountRepo } from '../../src/resources/internal-accounts/index.js';
import { platformService } from '../../src/tenancy/index.js';
import type { RunningSandbox } from '../../src/index.js';
import { individual, unique, type Api } from '../helpers/sandbox.js';

/**
 * Whether a generated id would trigger a sandbox card rule by chance (its last three characters
 * are a magic suffix: a cardholder id decides issuance when `platformCardId` is absent, an
 * account id decides funding-source eligibility). About 1 in 800 ids would; tests that do not
 * test those rules take another customer instead of failing by chance.
 */
const magicByChance = (customerId: string, accountIds: string[]) =>
  ['001', '002', '005'].includes(customerId.slice(-3)) || accountIds.some((id) => ['002', '003'].includes(id.slice(-3)));

/** A platform with one APPROVED cardholder holding funded USD (and EUR, MXN) accounts. */
export async function cardholder(root: Api, sandbox: RunningSandbox, fund = 1_000_00) {
  const api = await root.newPlatform();
  let customer;
  let accounts;
  do {
    customer = await api.post('/customers', individual(['USD', 'EUR', 'MXN']));
    expect(customer.status, JSON.stringify(customer.body)).toBe(201);
    accounts = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}`)).body.data;
  } while (magicByChance(customer.body.id, accounts.map((a: { id: string }) => a.id)));
  const byCode = (code: string) => accounts.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === code).id as string;
  const usd = byCode('USD');
  if (fund > 0) expect((await api.post(`/sandbox/internal-accounts/${usd}/fund`, { amount: fund })).status).toBe(200);
  const platformId = platformService(sandbox.context).byClientId(api.clientId)!.id;
  return { api, customer: customer.body, usd, eur: byCode('EUR'), mxn: byCode('MXN'), platformId };
}

/** A fresh internal-account id without a funding-source magic suffix (`002`, `003`). */
function ordinaryAccountId(sandbox: RunningSandbox): string {
  let id;
  do id = sandbox.context.ids.next('InternalAccount');
  while (['002', '003'].includes(id.slice(-3)));
  return id;
}

/**
 * A second USD account of the customer. The internal-accounts area provisions one account per
 * currency and has no endpoint for more, so the multi-source tests add one through its repo
 * (INTERNAL_CRYPTO by default: an EMBEDDED_WALLET funds a card only with an ACTIVE delegated key).
 */
export function extraUsdAccount(
  sandbox: RunningSandbox,
  platformId: string,
  customerId: string,
  id = ordinaryAccountId(sandbox),
  type: 'EMBEDDED_WALLET' | 'INTERNAL_CRYPTO' = 'INTERNAL_CRYPTO',
): string {
  const now = sandbox.context.clock.iso();
  internalAccountRepo(sandbox.context).insert({
    id,
    platform_id: platformId,
    customer_id: customerId,
    type,
    currency: 'USD',
    status: 'ACTIVE',
    created_at: now,
    updated_at: now,
  });
  return id;
}

/** Issues an ACTIVE card (plain suffix) on the given sources. */
export async function activeCard(api: Api, cardholderId: string, fundingSources: string[], extra: Record<string, unknown> = {}) {
  const res = await api.post('/cards', { cardholderId, form: 'VIRTUAL', fundingSources, platformCardId: `${unique('card')}-123`, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const card = (await api.get(`/cards/${res.body.id}`)).body;
  expect(card.state).toBe('ACTIVE');
  return card as { id: string; [key: string]: unknown };
}

/** Balances of an internal account. */
export async function balances(api: Api, customerId: string, accountId: string) {
  const res = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`);
  const account = res.body.data.find((a: { id: string }) => a.id === accountId);
  return { balance: account.balance.amount as number, total: account.totalBalance.amount as number };
}

/** Runs a simulation and returns what came of it (outcome, decline reason, card transaction). */
export async function simulate(api: Api, cardId: string, kind: string, body: unknown) {
  const res = await api.post(`/sandbox/cards/${cardId}/simulate/${kind}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const outcome = await api.get(`/_sandbox/cards/simulations/${res.body.issuerTransactionToken}`);
  expect(outcome.status).toBe(200);
  return outcome.body as { outcome: 'APPROVED' | 'DECLINED'; declineReason: string | null; cardTransactionId: string | null };
}

/** An authorisation request body. */
export const auth = (amount: number, descriptor = 'BLUE BOTTLE COFFEE SF', currency = 'USD') => ({
  amount,
  currency: { code: currency },
  merchant: { descriptor, mcc: '5814', country: 'US' },
});

/** A card transaction through `GET /transactions/{id}`. */
export async function cardTx(api: Api, id: string) {
  const res = await api.get(`/transactions/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Checks an outbox event, as delivered (`{id, type, timestamp, data}`), against the contract's webhook of its type. */
export function fitsWebhook(event: { id: string; type: string; createdAt: string; data: unknown }): void {
  const name = WEBHOOK_TYPES[event.type];
  expect(name, event.type).toBeTruthy();
  assertFitsWebhook(name!, { id: event.id, type: event.type, timestamp: event.createdAt, data: event.data });
}
