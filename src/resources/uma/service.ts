import { perContext } from '../../core/per-context.js';
import { ApiError, invalidInput, notFound } from '../../core/errors.js';
import { decodeCursor, paginate, type Page } from '../../core/pagination.js';
import type { SandboxContext } from '../../store/context.js';
import { umaProviders, type UmaProviderRow } from '../../rules/uma-providers.js';
import { umaCounterpartyRules, umaSenderRules, umaTestAddressOf, umaTestUser, type UmaBehaviour, type UmaTestAddress } from '../../rules/uma-addresses.js';
import { recordRule } from '../../store/coverage.js';
import { assertCustomerCanMoveMoney, findCustomerByUmaAddress, getCustomer, type CustomerRecord } from '../customers/index.js';
import { defaultUmaDepositAccountOf, getExternalAccountFor, type ExternalAccount } from '../external-accounts/index.js';
import { accountsOfCustomer, type InternalAccountRow } from '../internal-accounts/index.js';
import { bucketOf, move, worldAccount } from '../ledger/index.js';
import type { Platform } from '../../tenancy/index.js';
import { appliedRate, currencyInfo } from '../rates/index.js';
import {
  decideTransaction,
  getTransaction,
  holdForApproval,
  pendingApprovalOf,
  recordTransaction,
  updateTransaction,
  type ApprovalKind,
  type TransactionBody,
} from '../transactions/index.js';
import type { WebhookResponse } from '../../events/index.js';
import { checkAmount, ownerForMovement } from '../transfers/index.js';
import { ReceiverLookupRepo, type ReceiverLookupRow } from './repo.js';
import type { ReceiverLookupQuery, SandboxUmaReceiveRequest, UmaProvidersQuery } from './schemas.js';

/** Job kind: a pending incoming UMA payment completes. */
export const SETTLE_UMA_RECEIVE_JOB = 'uma.receive.settle';

const repoOf = perContext((ctx: SandboxContext) => new ReceiverLookupRepo(ctx.db));

// UMAD-01: `$` + user part of a-z0-9 and `-_.+` (at most 64 characters with the `$`) + `@` + a
// domain name; addresses are case-insensitive.
const UMA_ADDRESS = /^\$([a-z0-9._+-]{1,63})@((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63})$/i;

/**
 * A UMA address in its canonical (lower-case) form, or `400 INVALID_UMA_ADDRESS` when it does
 * not follow the UMA address grammar (UMAD-01).
 */
export function parseUmaAddress(value: string, field: string): string {
  if (value.length > 320 || !UMA_ADDRESS.test(value)) {
    throw new ApiError(400, 'INVALID_UMA_ADDRESS', `${JSON.stringify(value)} is not a UMA address: use $user@domain, the user part made of a-z, 0-9 and -_.+ (at most 63 characters).`, {
      errors: [{ field, constraint: { pattern: UMA_ADDRESS.source }, message: 'A UMA address such as $alice@vasp.example.' }],
    });
  }
  return value.toLowerCase();
}

/** A currency a UMA address receives in, with the amounts accepted (smallest unit). */
export interface UmaReceivingCurrency {
  code: string;
  min: number;
  max: number;
  /** Platform customers without a default UMA deposit account: the internal account credited in this currency. */
  internalAccountId?: string;
  /** Platform customers with a default UMA deposit account: that external account (its currency is the only one). */
  externalAccountId?: string;
}

/** What a UMA address resolves to: a sandbox test address or one of the platform's own customers. */
export interface ResolvedUmaAddress {
  /** The address in canonical (lower-case) form. */
  umaAddress: string;
  kind: 'SANDBOX_TEST_ADDRESS' | 'PLATFORM_CUSTOMER';
  /** How a payment to it ends (platform customers always succeed). */
  behaviour: UmaBehaviour;
  /** `PENDING_LONG`: seconds on the sandbox clock before it completes. */
  pendingSeconds?: number;
  /** `FAILS_COMPLIANCE`: the failure reason to record. */
  failureReason?: 'COMPLIANCE_REJECTED';
  /** Receiving currencies, preferred first. Empty when the customer has nowhere to receive. */
  currencies: UmaReceivingCurrency[];
  /** Payer data the receiver asks for. */
  requiredPayerDataFields: { name: string; mandatory: boolean }[];
  /** The receiver's data as counterparty information (FULL_NAME, USER_TYPE, ...). */
  counterparty: Record<string, string>;
  /** What the sandbox says happens, for a transaction's description. */
  description: string;
  /** Platform customers only. */
  customer?: { id: string; platformCustomerId: string; defaultUmaDepositAccount?: ExternalAccount };
  /** A failing counterparty test address: what its pay request (the quote) answers. */
  payRequestError?: NonNullable<UmaTestAddress['counterpartyError']>;
}

/** The `400` a failing counterparty answers (a UMA error of API.md), recorded as its rule. */
function counterpartyFailure(ctx: SandboxContext, platform: Platform, address: string, error: NonNullable<UmaTestAddress['counterpartyError']>): ApiError {
  recordRule(ctx, platform.id, umaCounterpartyRules.of(umaTestUser(address)));
  return new ApiError(400, error.code, `${address}: ${error.message}`, { umaAddress: address }, error.retryable ? { retryAfterSeconds: 1 } : undefined);
}

/**
 * Throws what the receiver's VASP answers a pay request with, when it is a failing
 * counterparty (sandbox-rules.md "UMA test addresses"): called by a quote to a UMA address.
 */
export function checkPayRequest(ctx: SandboxContext, platform: Platform, receiver: ResolvedUmaAddress): void {
  if (receiver.payRequestError) throw counterpartyFailure(ctx, platform, receiver.umaAddress, receiver.payRequestError);
}

/** The platform's limits for a currency, or undefined when the platform does not receive it. */
function incomingLimits(platform: Platform, code: string): { min: number; max: number } | undefined {
  const config = platform.config.supportedCurrencies.find((c) => c.currencyCode === code);
  if (!config || !config.enabledTransactionTypes.includes('INCOMING')) return undefined;
  return { min: config.minAmount, max: config.maxAmount };
}

/** The customer's receiving account in a currency: an active one, a regular account before the embedded wallet. */
function receivingAccountOf(accounts: InternalAccountRow[], code: string): InternalAccountRow | undefined {
  const active = accounts.filter((a) => a.currency === code && a.status === 'ACTIVE');
  return active.find((a) => a.type !== 'EMBEDDED_WALLET') ?? active[0];
}

function customerCounterparty(customer: CustomerRecord): Record<string, string> {
  const profile = customer.profile;
  const out: Record<string, string> = { USER_TYPE: customer.customerType };
  const name = customer.customerType === 'BUSINESS' ? profile.businessInfo?.legalName : profile.fullName;
  if (typeof name === 'string') out.FULL_NAME = name;
  if (customer.region) out.COUNTRY_OF_RESIDENCE = customer.region;
  if (typeof profile.nationality === 'string') out.NATIONALITY = profile.nationality;
  return out;
}

function resolveCustomer(ctx: SandboxContext, platform: Platform, customer: CustomerRecord): ResolvedUmaAddress {
  const deposit = defaultUmaDepositAccountOf(ctx, platform.id, customer.id);
  const currencies: UmaReceivingCurrency[] = [];
  if (deposit) {
    const limits = incomingLimits(platform, deposit.currency);
    if (limits) currencies.push({ code: deposit.currency, ...limits, externalAccountId: deposit.id });
  } else {
    const accounts = accountsOfCustomer(ctx, platform.id, customer.id);
    const codes = [...new Set(accounts.map((a) => a.currency))];
    for (const code of codes) {
      const limits = incomingLimits(platform, code);
      const account = receivingAccountOf(accounts, code);
      if (limits && account) currencies.push({ code, ...limits, internalAccountId: account.id });
    }
  }
  const fields = new Map<string, boolean>();
  for (const { code } of currencies) {
    for (const field of platform.config.supportedCurrencies.find((c) => c.currencyCode === code)?.requiredCounterpartyFields ?? []) {
      fields.set(field.name, (fields.get(field.name) ?? false) || field.mandatory);
    }
  }
  return {
    umaAddress: customer.umaAddress.toLowerCase(),
    kind: 'PLATFORM_CUSTOMER',
    behaviour: 'SUCCEEDS',
    currencies,
    requiredPayerDataFields: [...fields].map(([name, mandatory]) => ({ name, mandatory })),
    counterparty: customerCounterparty(customer),
    description: deposit ? 'UMA payment to a platform customer (forwarded to their default UMA deposit account)' : 'UMA payment to a platform customer',
    customer: { id: customer.id, platformCustomerId: customer.platformCustomerId, ...(deposit ? { defaultUmaDepositAccount: deposit } : {}) },
  };
}

/**
 * Resolves a UMA address for a payment to it: the sandbox test addresses (sandbox-rules.md
 * "UMA addresses") first, then the platform's own customers' `umaAddress`.
 * `400 INVALID_UMA_ADDRESS` when malformed, `404 UMA_NOT_FOUND` when well-formed but unknown.
 */
export function resolveUmaAddress(ctx: SandboxContext, platform: Platform, address: string, field = 'receiverUmaAddress'): ResolvedUmaAddress {
  const canonical = parseUmaAddress(address, field);
  const test = umaTestAddressOf(canonical);
  if (test) {
    if (test.counterpartyError?.phase === 'LOOKUP') throw counterpartyFailure(ctx, platform, test.address, test.counterpartyError);
    return {
      umaAddress: test.address,
      kind: 'SANDBOX_TEST_ADDRESS',
      behaviour: test.behaviour,
      ...(test.pendingSeconds !== undefined ? { pendingSeconds: test.pendingSeconds } : {}),
      ...(test.failureReason ? { failureReason: test.failureReason } : {}),
      currencies: test.currencies.map((c) => ({ ...c })),
      requiredPayerDataFields: test.requiredPayerDataFields.map((f) => ({ ...f })),
      counterparty: { ...test.holder, UMA_ADDRESS: test.address },
      description: test.description,
      ...(test.counterpartyError ? { payRequestError: test.counterpartyError } : {}),
    };
  }
  const customer = findCustomerByUmaAddress(ctx, platform.id, canonical);
  if (customer) return resolveCustomer(ctx, platform, customer);
  throw notFound('UMA_NOT_FOUND', `No receiver at ${canonical}: the address is well-formed but unknown to its VASP.`);
}

/** The sender of a lookup: the platform customer named by `customerId` and/or `senderUmaAddress`, and the currency they send in. */
function senderOf(ctx: SandboxContext, platform: Platform, query: ReceiverLookupQuery): { customer: CustomerRecord; currency: string } {
  if (query.customerId === undefined && query.senderUmaAddress === undefined) {
    throw invalidInput('Name the sender: customerId or senderUmaAddress.', [
      { field: 'customerId', constraint: { required: true }, message: 'Required unless senderUmaAddress is given.' },
      { field: 'senderUmaAddress', constraint: { required: true }, message: 'Required unless customerId is given.' },
    ]);
  }
  let customer = query.customerId !== undefined ? getCustomer(ctx, platform.id, query.customerId) : undefined;
  if (query.senderUmaAddress !== undefined) {
    const address = parseUmaAddress(query.senderUmaAddress, 'senderUmaAddress');
    const holder = findCustomerByUmaAddress(ctx, platform.id, address);
    if (!holder) throw notFound('USER_NOT_FOUND', `No customer of this platform has the UMA address ${address}.`);
    if (customer && holder.id !== customer.id) {
      throw invalidInput('senderUmaAddress is not the UMA address of customerId.', [
        { field: 'senderUmaAddress', message: `${address} belongs to ${holder.id}, not ${customer.id}.` },
      ]);
    }
    customer = holder;
  }
  const outgoing = platform.config.supportedCurrencies.filter((c) => c.enabledTransactionTypes.includes('OUTGOING')).map((c) => c.currencyCode);
  const currency = customer!.currencies.find((code) => outgoing.includes(code)) ?? outgoing[0] ?? 'USD';
  return { customer: customer!, currency };
}

/** The contract's `CurrencyPreference` list: currencies with a rate from the sender's currency. */
function currencyPreferences(ctx: SandboxContext, sendingCurrency: string, currencies: UmaReceivingCurrency[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const c of currencies) {
    let rate: number;
    try {
      rate = c.code === sendingCurrency ? 1 : Number(appliedRate(sendingCurrency, c.code, ctx.clock.now()).toPrecision(10));
    } catch {
      continue; // no rate for this pair: not a currency this sender can pay in
    }
    out.push({ currency: currencyInfo(c.code), estimatedExchangeRate: rate, min: c.min, max: c.max });
  }
  return out;
}

function storeLookup(ctx: SandboxContext, platformId: string, kind: ReceiverLookupRow['kind'], receiver: string, senderId: string, body: Record<string, unknown>): void {
  repoOf(ctx).insert({
    id: body.lookupId as string,
    platform_id: platformId,
    kind,
    receiver,
    sender_customer_id: senderId,
    created_at: ctx.clock.iso(),
    body: JSON.stringify(body),
  });
}

/**
 * `GET /receiver/uma/{receiverUmaAddress}`: the receiving currencies with estimated rates from
 * the sender's currency, and the payer data asked for. The answer is kept under its `lookupId`.
 */
export function lookupUma(ctx: SandboxContext, platform: Platform, address: string, query: ReceiverLookupQuery): Record<string, unknown> {
  return ctx.tx(() => {
    const sender = senderOf(ctx, platform, query);
    const receiver = resolveUmaAddress(ctx, platform, address);
    if (receiver.customer?.id === sender.customer.id) {
      throw new ApiError(400, 'SELF_PAYMENT', `${receiver.umaAddress} is the sender's own UMA address.`);
    }
    const body: Record<string, unknown> = {
      lookupId: ctx.ids.next('Lookup'),
      receiverUmaAddress: receiver.umaAddress,
      supportedCurrencies: currencyPreferences(ctx, sender.currency, receiver.currencies),
      requiredPayerDataFields: receiver.requiredPayerDataFields,
    };
    storeLookup(ctx, platform.id, 'UMA_ADDRESS', receiver.umaAddress, sender.customer.id, body);
    return body;
  });
}

/** `GET /receiver/external-account/{accountId}`: the account's currency with an estimated rate and the platform's limits. */
export function lookupExternalAccount(ctx: SandboxContext, platform: Platform, accountId: string, query: ReceiverLookupQuery): Record<string, unknown> {
  return ctx.tx(() => {
    const sender = senderOf(ctx, platform, query);
    const account = getExternalAccountFor(ctx, platform.id, accountId, 'customer');
    const config = platform.config.supportedCurrencies.find((c) => c.currencyCode === account.currency);
    const currencies = config ? [{ code: account.currency, min: config.minAmount, max: config.maxAmount }] : [];
    const body: Record<string, unknown> = {
      lookupId: ctx.ids.next('Lookup'),
      accountId: account.id,
      supportedCurrencies: currencyPreferences(ctx, sender.currency, currencies),
      requiredPayerDataFields: (config?.requiredCounterpartyFields ?? []).map((f) => ({ name: f.name, mandatory: f.mandatory })),
    };
    storeLookup(ctx, platform.id, 'EXTERNAL_ACCOUNT', account.id, sender.customer.id, body);
    return body;
  });
}

/** A stored receiver lookup, as a quote naming its `lookupId` needs it. */
export interface ReceiverLookup {
  id: string;
  kind: 'UMA_ADDRESS' | 'EXTERNAL_ACCOUNT';
  /** The canonical UMA address or the external account id looked up. */
  receiver: string;
  senderCustomerId: string | undefined;
  createdAt: string;
  /** The lookup response as it was returned. */
  response: Record<string, unknown>;
}

/** A lookup of the platform by id, or `404 LOOKUP_REQUEST_NOT_FOUND`. */
export function getReceiverLookup(ctx: SandboxContext, platformId: string, lookupId: string): ReceiverLookup {
  const row = repoOf(ctx).byId(platformId, lookupId);
  if (!row) throw notFound('LOOKUP_REQUEST_NOT_FOUND', `No receiver lookup ${lookupId} on this platform.`);
  return {
    id: row.id,
    kind: row.kind,
    receiver: row.receiver,
    senderCustomerId: row.sender_customer_id ?? undefined,
    createdAt: row.created_at,
    response: JSON.parse(row.body) as Record<string, unknown>,
  };
}

/** Wipes a platform's lookups (sandbox reset). */
export function removePlatformLookups(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}

const money = (amount: number, code: string) => ({ amount, currency: currencyInfo(code) });

/** The receiving customer of a sandbox receive: by `customerId`, by `receiverUmaAddress`, or both when they agree. */
function receivingCustomer(ctx: SandboxContext, platform: Platform, request: SandboxUmaReceiveRequest): CustomerRecord {
  if (request.customerId === undefined && request.receiverUmaAddress === undefined) {
    throw invalidInput('Name the receiver: customerId or receiverUmaAddress.', [
      { field: 'customerId', constraint: { required: true }, message: 'Required unless receiverUmaAddress is given.' },
      { field: 'receiverUmaAddress', constraint: { required: true }, message: 'Required unless customerId is given.' },
    ]);
  }
  const byId = request.customerId !== undefined ? getCustomer(ctx, platform.id, request.customerId) : undefined;
  if (request.receiverUmaAddress === undefined) return byId!;
  const address = parseUmaAddress(request.receiverUmaAddress, 'receiverUmaAddress');
  const byAddress = findCustomerByUmaAddress(ctx, platform.id, address);
  if (!byAddress) throw notFound('UMA_NOT_FOUND', `No customer of this platform has the UMA address ${address}.`);
  if (byId && byId.id !== byAddress.id) {
    throw invalidInput('receiverUmaAddress is not the UMA address of customerId.', [
      { field: 'receiverUmaAddress', message: `${address} belongs to ${byAddress.id}, not ${byId.id}.` },
    ]);
  }
  return byAddress;
}

/**
 * `POST /sandbox/uma/receive`: an incoming UMA payment from a sandbox test address to a
 * platform customer, behaving as the sender's row says (sandbox-rules.md "UMA addresses").
 * API.md: it goes to the customer's `defaultUmaDepositAccount` when one is set (paid straight
 * onward, so no sandbox balance changes), otherwise to their internal account in the
 * receiving currency. One transaction: checks, ledger, transaction and event, job.
 */
export function sandboxReceive(ctx: SandboxContext, platform: Platform, request: SandboxUmaReceiveRequest): TransactionBody {
  return ctx.tx(() => {
    const senderAddress = parseUmaAddress(request.senderUmaAddress, 'senderUmaAddress');
    const sender = umaTestAddressOf(senderAddress);
    if (!sender || sender.counterpartyError) {
      throw notFound('UMA_NOT_FOUND', `${senderAddress} is not a sandbox sender; use one of the sandbox UMA test addresses (e.g. $success.usd@sandbox.uma.money).`);
    }
    const customer = receivingCustomer(ctx, platform, request);
    const currency = currencyInfo(request.receivingCurrencyCode, 'receivingCurrencyCode').code;
    const amount = request.receivingCurrencyAmount;
    const deposit = defaultUmaDepositAccountOf(ctx, platform.id, customer.id);
    let destination: { destinationType: 'ACCOUNT'; accountId: string; currency: string };
    let internal: InternalAccountRow | undefined;
    let owner: { customerId: string; platformCustomerId: string };
    if (deposit) {
      if (deposit.currency !== currency) {
        throw new ApiError(400, 'INVALID_CURRENCY', `${customer.id}'s default UMA deposit account ${deposit.id} receives ${deposit.currency}, not ${currency}.`);
      }
      const ready = assertCustomerCanMoveMoney(ctx, platform, customer.id);
      owner = { customerId: ready.id, platformCustomerId: ready.platformCustomerId };
      destination = { destinationType: 'ACCOUNT', accountId: deposit.id, currency };
    } else {
      internal = receivingAccountOf(accountsOfCustomer(ctx, platform.id, customer.id), currency);
      if (!internal) {
        throw new ApiError(400, 'INVALID_CURRENCY', `${customer.id} has no active internal account in ${currency} to receive into.`);
      }
      owner = ownerForMovement(ctx, platform, internal);
      destination = { destinationType: 'ACCOUNT', accountId: internal.id, currency };
    }
    checkAmount(platform, currency, amount, 'INCOMING');

    // The sender pays in its own currency; what it sent follows from the rate, rounded up.
    const senderCurrency = sender.currencies[0]!.code;
    const rate = senderCurrency === currency ? 1 : Number(appliedRate(senderCurrency, currency, ctx.clock.now()).toPrecision(10));
    const sending = currencyInfo(senderCurrency);
    const receiving = currencyInfo(currency);
    const sentAmount = Math.ceil((amount * 10 ** (sending.decimals - receiving.decimals)) / rate);

    recordRule(ctx, platform.id, umaSenderRules.of(umaTestUser(sender.address)));
    const outcome = sender.behaviour === 'FAILS_COMPLIANCE' ? 'FAILED' : sender.behaviour === 'PENDING_LONG' ? 'PENDING' : 'COMPLETED';
    // The contract's incoming-payment webhook: on an approval rail (UMA) the payment waits
    // PENDING for the platform's answer. Sandbox default: a platform without a webhook
    // endpoint has nobody to ask, so its payments proceed as if approved.
    const approval = outcome !== 'FAILED' && platform.config.webhookEndpoint !== undefined;
    const status = approval ? 'PENDING' : outcome;
    const id = ctx.ids.next('Transaction');
    if (internal && !approval && status !== 'FAILED') {
      // Pending: arriving (in totalBalance only) until it settles.
      move(ctx, platform.id, id, worldAccount(currency), bucketOf(internal.id, status === 'PENDING' ? 'incoming' : 'available'), currency, amount);
    }
    const transaction = recordTransaction(ctx, platform.id, {
      id,
      status,
      type: 'INCOMING',
      direction: 'CREDIT',
      source: { sourceType: 'UMA_ADDRESS', umaAddress: sender.address, currency: senderCurrency },
      destination,
      ...owner,
      sentAmount: { amount: sentAmount, currency: sending },
      receivedAmount: money(amount, currency),
      exchangeRate: rate,
      fees: 0,
      description: deposit ? `${sender.description}, forwarded to the default UMA deposit account` : sender.description,
      counterpartyInformation: { ...sender.holder, UMA_ADDRESS: sender.address },
      reconciliationInstructions: { reference: `SBX-${id.slice(-12).toUpperCase()}` },
      ...(status === 'FAILED' ? { failureReason: sender.failureReason ?? 'COMPLIANCE_REJECTED' } : {}),
    });
    if (approval) {
      const data: UmaApprovalData = { internalAccountId: internal?.id ?? null, outcome, pendingSeconds: sender.pendingSeconds ?? 0 };
      holdForApproval(ctx, platform.id, id, UMA_INCOMING_APPROVAL, { data, expiresInMs: APPROVAL_WINDOW_MS });
    } else if (status === 'PENDING') {
      ctx.scheduler.schedule(platform.id, SETTLE_UMA_RECEIVE_JOB, (sender.pendingSeconds ?? 0) * 1000, { transactionId: id, internalAccountId: internal?.id ?? null });
    }
    return transaction;
  });
}

/** The approval kind of incoming UMA payments waiting for the platform. */
export const UMA_INCOMING_APPROVAL = 'UMA_INCOMING';

/** The contract's incoming-payment webhook: after a 202 the platform has 5 seconds (sandbox clock) to approve or reject. */
export const APPROVAL_WINDOW_MS = 5_000;

/** What an approved incoming UMA payment does next. */
interface UmaApprovalData {
  internalAccountId: string | null;
  outcome: 'COMPLETED' | 'PENDING';
  pendingSeconds: number;
}

const failureReasons = new Set(['PAYMENT_APPROVAL_WEBHOOK_ERROR', 'PAYMENT_APPROVAL_TIMED_OUT', 'MISSING_MANDATORY_PAYEE_DATA']);

/**
 * Approve and reject of a pending incoming UMA payment. Approved: credited (or, from the
 * long-pending sender, arriving until it settles). Rejected by the platform (403 or
 * `/reject`): `REJECTED`; a 422 asking for more payee data, an error answer, or no decision
 * within the window: `FAILED` with the contract's failure reason. Nothing was credited
 * before the decision, so a refusal moves no money.
 */
export const umaIncomingApproval: ApprovalKind = {
  approve: (ctx, platformId, transaction, raw) => {
    const data = raw as UmaApprovalData;
    const received = transaction.receivedAmount as { amount: number; currency: { code: string } };
    const currency = received.currency.code;
    if (data.outcome === 'PENDING') {
      if (data.internalAccountId) move(ctx, platformId, transaction.id, worldAccount(currency), bucketOf(data.internalAccountId, 'incoming'), currency, received.amount);
      ctx.scheduler.schedule(platformId, SETTLE_UMA_RECEIVE_JOB, data.pendingSeconds * 1000, { transactionId: transaction.id, internalAccountId: data.internalAccountId });
      return updateTransaction(ctx, platformId, transaction.id, {});
    }
    if (data.internalAccountId) move(ctx, platformId, transaction.id, worldAccount(currency), bucketOf(data.internalAccountId), currency, received.amount);
    return updateTransaction(ctx, platformId, transaction.id, { status: 'COMPLETED' });
  },
  reject: (ctx, platformId, transaction, _data, decision) => {
    if (decision.via === 'EXPIRY') return updateTransaction(ctx, platformId, transaction.id, { status: 'FAILED', failureReason: 'PAYMENT_APPROVAL_TIMED_OUT' });
    if (decision.via === 'WEBHOOK' && decision.reason && failureReasons.has(decision.reason)) {
      return updateTransaction(ctx, platformId, transaction.id, { status: 'FAILED', failureReason: decision.reason });
    }
    return updateTransaction(ctx, platformId, transaction.id, { status: 'REJECTED' });
  },
};

/** `receiverCustomerInfo` of a 200 answer's body (`IncomingPaymentWebhookResponse`), if any. */
function receiverCustomerInfoOf(body: string | null): Record<string, unknown> | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { receiverCustomerInfo?: unknown };
    const info = parsed?.receiverCustomerInfo;
    return info && typeof info === 'object' && !Array.isArray(info) ? (info as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The platform's answer to `INCOMING_PAYMENT.PENDING` of a payment waiting for it (the
 * contract's incoming-payment webhook): 200 approves, 403 rejects, 422 asks for payee data
 * the sandbox senders cannot give (fails), 202 leaves it to `/approve` or `/reject` within the
 * window; any other error answer fails it. Timeouts and refused connections decide nothing:
 * the window's end does.
 */
export function answerIncomingPayment(ctx: SandboxContext, response: WebhookResponse): void {
  if (!response.resourceId) return;
  const pending = pendingApprovalOf(ctx, response.platformId, response.resourceId);
  if (pending?.kind !== UMA_INCOMING_APPROVAL) return;
  const { status } = response;
  if (status === 202 || status === 409) return;
  const decide = (decision: Parameters<typeof decideTransaction>[3]) => {
    try {
      decideTransaction(ctx, response.platformId, response.resourceId!, decision);
    } catch (error) {
      // Decided meanwhile through /approve or /reject: the first decision stands.
      if (!(error instanceof ApiError)) throw error;
    }
  };
  if (status >= 200 && status < 300) decide({ decision: 'APPROVE', via: 'WEBHOOK', receiverCustomerInfo: receiverCustomerInfoOf(response.body) });
  else if (status === 403) decide({ decision: 'REJECT', via: 'WEBHOOK' });
  else if (status === 422) decide({ decision: 'REJECT', via: 'WEBHOOK', reason: 'MISSING_MANDATORY_PAYEE_DATA' });
  else decide({ decision: 'REJECT', via: 'WEBHOOK', reason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR' });
}

/** The scheduled end of a long-pending incoming UMA payment: it completes, and an internal account's incoming amount becomes available. */
export function settleUmaReceive(ctx: SandboxContext, platformId: string, transactionId: string, internalAccountId: string | null): void {
  const transaction = getTransaction(ctx, platformId, transactionId);
  if (transaction.status !== 'PENDING') return;
  const received = transaction.receivedAmount as { amount: number; currency: { code: string } };
  if (internalAccountId) {
    move(ctx, platformId, transactionId, bucketOf(internalAccountId, 'incoming'), bucketOf(internalAccountId), received.currency.code, received.amount);
  }
  updateTransaction(ctx, platformId, transactionId, { status: 'COMPLETED' });
}

/** The contract's `UmaProvider` of a row. */
function presentProvider(row: UmaProviderRow): Record<string, unknown> {
  return {
    name: row.name,
    supportedRegions: [...row.supportedRegions],
    domain: row.domain,
    logoUrl: row.logoUrl,
    supportedCurrencies: row.supportedCurrencies.map((code) => currencyInfo(code)),
    lei: row.lei,
    allowListStatus: row.allowListStatus,
  };
}

/**
 * `GET /uma-providers`: the provider directory filtered by region, currency and allow-list
 * standing (blocked providers are included unless `hasBlockedProviders=false`), sorted by
 * name (`sortOrder`, `desc` by default), with cursor pagination.
 */
export function listUmaProviders(query: UmaProvidersQuery): Page<Record<string, unknown>> {
  const rows = umaProviders
    .filter((p) => query.countryCode === undefined || p.supportedRegions.includes(query.countryCode))
    .filter((p) => query.currencyCode === undefined || p.supportedCurrencies.includes(query.currencyCode))
    .filter((p) => query.hasBlockedProviders || p.allowListStatus)
    .sort((a, b) => (query.sortOrder === 'asc' ? a.name.localeCompare(b.name, 'en') : b.name.localeCompare(a.name, 'en')));
  const cursor = query.cursor === '' ? undefined : query.cursor;
  try {
    decodeCursor(cursor);
  } catch {
    // A cursor this sandbox did not issue points past every provider (no 400: the contract lists none).
    return { data: [], hasMore: false, totalCount: rows.length };
  }
  return paginate(
    { limit: query.limit, cursor },
    ({ afterKey, take }) => {
      const index = afterKey === undefined ? -1 : rows.findIndex((row) => row.name === afterKey);
      if (afterKey !== undefined && index < 0) return [];
      return rows.slice(index + 1, index + 1 + take);
    },
    () => rows.length,
    (row) => row.name,
    presentProvider,
  );
}
