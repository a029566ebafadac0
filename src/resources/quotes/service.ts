import { perContext } from '../../core/per-context.js';
import { ApiError, ErrorCode, notFound } from '../../core/errors.js';
import type { SandboxContext } from '../../store/context.js';
import { DEFAULT_LOCK_SECONDS, lockSecondsByRail, payoutRuleOf, payoutRules, umaPayoutRule, type PayoutRule, type PayoutStep } from '../../rules/quote-rules.js';
import { umaReceiverRules, umaTestUser } from '../../rules/uma-addresses.js';
import { recordRule } from '../../store/coverage.js';
import { assertCustomerCanMoveMoney, getCustomer, type CustomerRecord } from '../customers/index.js';
import { getExternalAccountFor, primaryIdentifierSuffix, type ExternalAccount } from '../external-accounts/index.js';
import { fundingInstructions, type InternalAccountRow } from '../internal-accounts/index.js';
import { bucketOf, insufficientFunds, ledgerBalance, move, post, worldAccount } from '../ledger/index.js';
import type { Platform } from '../../tenancy/index.js';
import { price, type Pricing } from '../rates/index.js';
import { findTransaction, getTransaction, recordTransaction, updateTransaction, type NewTransaction, type TransactionBody } from '../transactions/index.js';
import { checkAmount, internalAccountOf, moverOf, ownerForMovement, type AccountOwner } from '../transfers/index.js';
import { checkPayRequest, getReceiverLookup, resolveUmaAddress } from '../uma/index.js';
import { quoteGuards, type QuoteAuthorizationRequest, type QuoteGuard } from './guards.js';
import { QuoteRepo, type QuoteRow } from './repo.js';
import type { QuoteRequest } from './schemas.js';

/** Job kind: the next step of a payout after execution (sandbox-rules.md's quote suffix table). */
export const PAYOUT_STEP_JOB = 'payout.step';

/** What execution needs to know, fixed when the quote is made. */
interface Plan {
  source: { kind: 'ACCOUNT'; accountId: string; currency: string } | { kind: 'REALTIME_FUNDING'; currency: string };
  destination:
    | { kind: 'INTERNAL'; accountId: string; currency: string; customerId: string | null; umaAddress?: string }
    | { kind: 'EXTERNAL'; accountId: string; currency: string; suffix: string; rail?: string | undefined; umaAddress?: string }
    | { kind: 'UMA'; umaAddress: string; currency: string; behaviour: 'SUCCEEDS' | 'PENDING_LONG' | 'FAILS_COMPLIANCE'; pendingSeconds?: number | undefined };
  owner: AccountOwner;
  pricing: Pricing;
  description?: string | undefined;
  remittanceInformation?: string | undefined;
  purposeOfPayment?: string | undefined;
}

const repoOf = perContext((ctx: SandboxContext) => new QuoteRepo(ctx.db));

/** The first answer of the registered guards at one point (quotes/guards.ts), or undefined when none answers. */
function guardAnswer<T>(ask: (guard: QuoteGuard) => T | undefined): T | undefined {
  for (const guard of quoteGuards) {
    const answer = ask(guard);
    if (answer !== undefined) return answer;
  }
  return undefined;
}

/** The authorization guard (SCA): the challenge a send must answer first, or undefined. */
const requireAuthorization = (ctx: SandboxContext, platform: Platform, request: QuoteAuthorizationRequest) =>
  guardAnswer((guard) => guard.requireAuthorization?.(ctx, platform, request));

/** A 404 from a lookup becomes a 400 on the request field: POST /quotes declares no 404. */
function asField<T>(field: string, lookup: () => T): T {
  try {
    return lookup();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new ApiError(400, ErrorCode.INVALID_INPUT, error.message, { errors: [{ field, constraint: { rule: 'exists' }, message: error.message }] });
    }
    throw error;
  }
}

const CRYPTO_TYPES = new Set(['BASE_WALLET', 'ETHEREUM_WALLET', 'POLYGON_WALLET', 'PLASMA_WALLET', 'ARBITRUM_WALLET', 'SOLANA_WALLET', 'TRON_WALLET']);

/** The rail class that decides how long a quote to this external account locks its rate. */
function lockClassOf(external: ExternalAccount, rail: string | undefined): string {
  const type = external.accountInfo.accountType;
  if (type === 'LIGHTNING' || type === 'LIGHTNING_ACCOUNT') return 'LIGHTNING';
  if (type === 'SPARK_WALLET') return 'SPARK';
  if (CRYPTO_TYPES.has(type)) return 'CRYPTO';
  return rail ?? 'BANK_TRANSFER';
}

/** An external account of the customer (or of the platform for platform-owned sources). */
function externalDestination(ctx: SandboxContext, platform: Platform, accountId: string, customerId: string | null): ExternalAccount {
  const account = asField('destination.accountId', () =>
    getExternalAccountFor(ctx, platform.id, accountId, customerId === null ? 'platform' : 'customer'),
  );
  if (customerId !== null && account.customerId !== customerId) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, `External account ${accountId} belongs to another customer.`, {
      errors: [{ field: 'destination.accountId', constraint: { rule: 'same-owner' }, message: "Pay one of the sending customer's own external accounts." }],
    });
  }
  return account;
}

/** Sender data the receiving side may require, by the contract's `CustomerInfoFieldName`. */
function senderData(customer: CustomerRecord | undefined, request: QuoteRequest): Map<string, unknown> {
  const data = new Map<string, unknown>();
  const p = (customer?.profile ?? {}) as Record<string, any>;
  const business = p.businessInfo as Record<string, unknown> | undefined;
  const put = (name: string, value: unknown) => {
    if (value !== undefined && value !== null && value !== '') data.set(name, value);
  };
  put('FULL_NAME', p.fullName ?? business?.legalName);
  put('COMPANY_LEGAL_NAME', business?.legalName);
  put('BIRTH_DATE', p.birthDate);
  put('NATIONALITY', p.nationality);
  put('EMAIL', p.email);
  put('PHONE_NUMBER', p.phoneNumber);
  put('POSTAL_ADDRESS', p.address);
  put('COUNTRY_OF_RESIDENCE', (p.address as { country?: string } | undefined)?.country);
  put('TAX_ID', p.identifier ?? business?.taxId);
  put('REGISTRATION_NUMBER', business?.registrationNumber);
  put('USER_TYPE', customer?.customerType);
  put('PURPOSE_OF_PAYMENT', request.purposeOfPayment);
  for (const [key, value] of Object.entries(request.senderCustomerInfo ?? {})) put(key, value);
  return data;
}

/**
 * The receiving currency's provider-required counterparty fields must all be known about the
 * sender (from the customer or `senderCustomerInfo`), or the quote fails with
 * `400 MISSING_MANDATORY_USER_INFO` naming them.
 */
function checkSenderInfo(platform: Platform, receivingCode: string, customer: CustomerRecord | undefined, request: QuoteRequest): void {
  const config = platform.config.supportedCurrencies.find((c) => c.currencyCode === receivingCode);
  const required = config?.providerRequiredCounterpartyCustomerFields ?? [];
  if (required.length === 0 || !customer) return;
  const known = senderData(customer, request);
  const missing = required.filter((field) => !known.has(field));
  if (missing.length > 0) {
    throw new ApiError(400, 'MISSING_MANDATORY_USER_INFO', `Paying ${receivingCode} needs ${missing.join(', ')} about the sender: add them to the customer or to senderCustomerInfo.`, {
      missingFields: missing,
      errors: missing.map((field) => ({ field: `senderCustomerInfo.${field}`, constraint: { rule: 'required' }, message: `${field} is required by the ${receivingCode} provider.` })),
    });
  }
}

/** The contract's Quote for a stored row, with EXPIRED shown once an unexecuted quote's lock has passed. */
function present(ctx: SandboxContext, row: QuoteRow): Record<string, unknown> {
  const body = JSON.parse(row.body) as Record<string, unknown>;
  if (row.executed_at === null && ctx.clock.now() >= row.expires_at && (row.status === 'PROCESSING' || row.status === 'PENDING' || row.status === 'PENDING_AUTHORIZATION')) {
    body.status = 'EXPIRED';
    delete body.scaChallenge;
  }
  return body;
}

function quoteRow(ctx: SandboxContext, platformId: string, quoteId: string): QuoteRow {
  const row = repoOf(ctx).byId(platformId, quoteId);
  if (!row) throw notFound('QUOTE_NOT_FOUND', `No quote ${quoteId} on this platform.`);
  return row;
}

function setQuoteStatus(ctx: SandboxContext, row: QuoteRow, status: string): void {
  const body = JSON.parse(row.body) as Record<string, unknown>;
  body.status = status;
  repoOf(ctx).update(row.id, status, JSON.stringify(body));
}

/**
 * A UMA destination: the contract requires the `lookupId` of a receiver lookup of the same
 * address. A sandbox test address pays out with its behaviour; one of the platform's own
 * customers is paid into its internal account, or onward to its default UMA deposit account.
 */
function umaDestination(ctx: SandboxContext, platform: Platform, request: QuoteRequest, customerId: string | null): Plan['destination'] {
  const target = request.destination as { umaAddress: string; currency?: string | undefined };
  const resolved = asField('destination.umaAddress', () => resolveUmaAddress(ctx, platform, target.umaAddress, 'destination.umaAddress'));
  if (request.lookupId === undefined) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, 'Quotes to a UMA address need the lookupId of GET /receiver/uma/{address} for it.', {
      errors: [{ field: 'lookupId', constraint: { required: true }, message: `Look up ${resolved.umaAddress} first and pass its lookupId.` }],
    });
  }
  const lookup = asField('lookupId', () => getReceiverLookup(ctx, platform.id, request.lookupId!));
  if (lookup.receiver !== resolved.umaAddress) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, `Lookup ${lookup.id} was for ${lookup.receiver}, not ${resolved.umaAddress}.`, {
      errors: [{ field: 'lookupId', constraint: { rule: 'same-receiver' }, message: 'Use the lookup of this address.' }],
    });
  }
  if (resolved.customer && resolved.customer.id === customerId) throw new ApiError(400, 'SELF_PAYMENT', `${resolved.umaAddress} is the sender's own UMA address.`);
  checkPayRequest(ctx, platform, resolved);
  const receiving = target.currency === undefined ? resolved.currencies[0] : resolved.currencies.find((c) => c.code === target.currency);
  if (!receiving) {
    throw new ApiError(400, 'INVALID_CURRENCY', `${resolved.umaAddress} does not receive ${target.currency ?? 'any currency'}; it receives ${resolved.currencies.map((c) => c.code).join(', ') || 'nothing'}.`, {
      errors: [{ field: 'destination.currency', constraint: { enum: resolved.currencies.map((c) => c.code) }, message: 'Pick a currency the receiver accepts.' }],
    });
  }
  const missing = resolved.requiredPayerDataFields.filter((f) => f.mandatory).map((f) => f.name);
  if (missing.length > 0 && customerId !== null) {
    const known = senderData(getCustomer(ctx, platform.id, customerId), request);
    const absent = missing.filter((name) => !known.has(name));
    if (absent.length > 0) {
      throw new ApiError(400, 'MISSING_MANDATORY_USER_INFO', `${resolved.umaAddress} needs ${absent.join(', ')} about the sender: add them to the customer or to senderCustomerInfo.`, {
        missingFields: absent,
      });
    }
  }
  if (receiving.internalAccountId) {
    return { kind: 'INTERNAL', accountId: receiving.internalAccountId, currency: receiving.code, customerId: resolved.customer?.id ?? null, umaAddress: resolved.umaAddress };
  }
  if (receiving.externalAccountId) {
    const external = getExternalAccountFor(ctx, platform.id, receiving.externalAccountId, 'customer');
    return { kind: 'EXTERNAL', accountId: external.id, currency: external.currency, suffix: primaryIdentifierSuffix(external), umaAddress: resolved.umaAddress };
  }
  return { kind: 'UMA', umaAddress: resolved.umaAddress, currency: receiving.code, behaviour: resolved.behaviour, pendingSeconds: resolved.pendingSeconds };
}

/** The payout steps of a destination outside the platform. */
function ruleOf(destination: Plan['destination']): PayoutRule | undefined {
  if (destination.kind === 'EXTERNAL') return payoutRuleOf(destination.suffix);
  if (destination.kind === 'UMA') return umaPayoutRule(destination.behaviour, destination.pendingSeconds);
  return undefined;
}

/** The coverage rule id of a payout's rule (sandbox-rules.md "Money movement", "UMA test addresses"). */
function payoutRuleIdOf(destination: Plan['destination']): string {
  return destination.kind === 'UMA' ? umaReceiverRules.of(umaTestUser(destination.umaAddress)) : payoutRules.of(destination.kind === 'EXTERNAL' ? destination.suffix : '');
}

/** `POST /quotes`: prices and locks a payment; with `immediatelyExecute`, executes it in the same transaction. */
export function createQuote(ctx: SandboxContext, platform: Platform, request: QuoteRequest, walletSignature?: string): { status: number; body: Record<string, unknown> } {
  return ctx.tx(() => {
    let customer: CustomerRecord | undefined;
    let source: Plan['source'];
    let owner: AccountOwner;
    let walletSource: InternalAccountRow | undefined;
    if (request.source.sourceType === 'ACCOUNT') {
      const { accountId, customerId } = request.source;
      const account = asField('source.accountId', () => internalAccountOf(ctx, platform.id, accountId));
      if (customerId !== undefined && account.customer_id !== customerId) {
        throw new ApiError(400, ErrorCode.INVALID_INPUT, `Internal account ${accountId} does not belong to ${customerId}.`, {
          errors: [{ field: 'source.customerId', constraint: { rule: 'owner' }, message: 'Name the customer who owns the source account.' }],
        });
      }
      ({ owner, customer } = moverOf(ctx, platform, account));
      source = { kind: 'ACCOUNT', accountId: account.id, currency: account.currency };
      if (account.type === 'EMBEDDED_WALLET') walletSource = account;
    } else {
      const { customerId, currency } = request.source;
      if (customerId !== undefined) {
        customer = asField('source.customerId', () => assertCustomerCanMoveMoney(ctx, platform, customerId));
        owner = { customerId: customer.id, platformCustomerId: customer.platformCustomerId };
      } else {
        owner = { customerId: platform.id, platformCustomerId: 'PLATFORM' };
      }
      source = { kind: 'REALTIME_FUNDING', currency };
    }
    const customerId = customer?.id ?? null;

    let destination: Plan['destination'];
    let lockClass: string;
    if (request.destination.destinationType === 'UMA_ADDRESS') {
      destination = umaDestination(ctx, platform, request, customerId);
      lockClass = 'UMA';
    } else if (request.destination.accountId.startsWith('InternalAccount:')) {
      const accountId = request.destination.accountId;
      const account: InternalAccountRow = asField('destination.accountId', () => internalAccountOf(ctx, platform.id, accountId));
      if (account.status !== 'ACTIVE') throw new ApiError(400, ErrorCode.INVALID_INPUT, `Internal account ${account.id} is ${account.status}.`);
      destination = { kind: 'INTERNAL', accountId: account.id, currency: account.currency, customerId: account.customer_id };
      lockClass = 'INTERNAL';
    } else {
      const external = externalDestination(ctx, platform, request.destination.accountId, customerId);
      const rail = request.destination.paymentRail ?? (external.accountInfo.paymentRails as string[] | undefined)?.[0];
      destination = { kind: 'EXTERNAL', accountId: external.id, currency: external.currency, suffix: primaryIdentifierSuffix(external), rail };
      lockClass = lockClassOf(external, rail);
    }
    if (source.kind === 'ACCOUNT' && destination.kind === 'INTERNAL' && source.accountId === destination.accountId) {
      throw new ApiError(400, 'SELF_PAYMENT', 'The source and destination are the same account.');
    }

    const pricing = price(ctx, platform, {
      from: source.currency,
      to: destination.currency,
      side: request.lockedCurrencySide,
      amount: request.lockedCurrencyAmount,
      feeOverride: request.platformFeeOverride,
    });
    checkAmount(platform, source.currency, pricing.totalSendingAmount, 'OUTGOING');
    // The receiving provider asks about the sender only when the money leaves the platform.
    if (destination.kind === 'EXTERNAL') checkSenderInfo(platform, destination.currency, customer, request);

    const id = ctx.ids.next('Quote');
    const transactionId = ctx.ids.next('Transaction');
    const now = ctx.clock.now();
    const expiresAt = now + (lockSecondsByRail[lockClass] ?? DEFAULT_LOCK_SECONDS) * 1000;
    const body: Record<string, unknown> = {
      id,
      // API.md: "A newly created quote has status PROCESSING and a transactionId."
      status: 'PROCESSING',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(expiresAt).toISOString(),
      source: request.source,
      destination: request.destination,
      sendingCurrency: pricing.sendingCurrency,
      receivingCurrency: pricing.receivingCurrency,
      totalSendingAmount: pricing.totalSendingAmount,
      totalReceivingAmount: pricing.totalReceivingAmount,
      exchangeRate: pricing.exchangeRate,
      feesIncluded: pricing.feesIncluded,
      platformFeesIncluded: pricing.platformFeesIncluded,
      transactionId,
      rateDetails: pricing.rateDetails,
    };
    if (source.kind === 'REALTIME_FUNDING') body.paymentInstructions = fundingInstructions(id, source.currency, customerId === null);
    // Wallet-auth: an embedded-wallet source is paid by a stamp over the EMBEDDED_WALLET entry's payloadToSign.
    if (walletSource) {
      const spark = fundingInstructions(walletSource.id, walletSource.currency, false)[0]?.accountOrWalletInfo as { address: string };
      const payment = { quoteId: id, accountId: walletSource.id, amount: pricing.totalSendingAmount, currency: walletSource.currency, sparkAddress: spark.address };
      const instructions = guardAnswer((guard) => guard.walletInstructions?.(ctx, platform, payment));
      if (instructions) body.paymentInstructions = instructions;
    }
    const plan: Plan = {
      source,
      destination,
      owner,
      pricing,
      description: request.description,
      remittanceInformation: request.remittanceInformation,
      purposeOfPayment: request.purposeOfPayment,
    };
    // SCA (issue 14): an in-scope customer's real-time-funded quote waits for authorization; its instructions are withheld until then.
    const scaChallenge = source.kind === 'REALTIME_FUNDING' ? requireAuthorization(ctx, platform, scaRequestOf(id, plan, 'CREATE', request.scaFactor)) : undefined;
    if (scaChallenge) {
      body.status = 'PENDING_AUTHORIZATION';
      body.scaChallenge = scaChallenge;
      delete body.paymentInstructions;
    }
    const row: QuoteRow = {
      id,
      platform_id: platform.id,
      status: body.status as string,
      expires_at: expiresAt,
      executed_at: null,
      transaction_id: transactionId,
      plan: JSON.stringify(plan),
      body: JSON.stringify(body),
    };
    repoOf(ctx).insert(row);
    if (scaChallenge) {
      recordTransaction(ctx, platform.id, outgoingFields(row, plan, 'PENDING_AUTHORIZATION'));
      return { status: 202, body };
    }
    if (request.immediatelyExecute && source.kind === 'ACCOUNT') {
      const executed = executeQuote(ctx, platform, id, { scaFactor: request.scaFactor, immediately: true, walletSignature });
      return { status: executed.status === 'PENDING_AUTHORIZATION' ? 202 : 201, body: executed };
    }
    return { status: 201, body };
    // Every refusal comes before the first write (`checksFirst`), but for an immediate execution's,
    // which comes after the quote is written and must undo it.
  }, { checksFirst: !request.immediatelyExecute });
}

/** `GET /quotes/{quoteId}`. */
export function getQuote(ctx: SandboxContext, platformId: string, quoteId: string): Record<string, unknown> {
  return present(ctx, quoteRow(ctx, platformId, quoteId));
}

/** The error code of a quote that cannot be claimed: 409 CONFLICT on execute, 400 INVALID_INPUT on a sandbox send. */
const claimCode = (conflictStatus: 400 | 409) => (conflictStatus === 409 ? ErrorCode.CONFLICT : ErrorCode.INVALID_INPUT);

/** Throws the contract's error unless the quote can be claimed now: not executed, not expired. Writes nothing. */
function assertClaimable(ctx: SandboxContext, row: QuoteRow, conflictStatus: 400 | 409): void {
  const code = claimCode(conflictStatus);
  if (row.executed_at !== null) {
    throw new ApiError(conflictStatus, code, `Quote ${row.id} was already executed; its transaction is ${row.transaction_id}.`, { reason: 'QUOTE_ALREADY_EXECUTED', transactionId: row.transaction_id });
  }
  if (ctx.clock.now() >= row.expires_at) {
    throw new ApiError(conflictStatus, code, `Quote ${row.id} expired at ${new Date(row.expires_at).toISOString()}; request a new quote.`, { reason: 'QUOTE_EXPIRED' });
  }
}

/**
 * Claims a quote found claimable (`assertClaimable`) in the same transaction: the conditional
 * update fails only if the quote was claimed since, and then wrote nothing.
 */
function markClaimed(ctx: SandboxContext, row: QuoteRow, conflictStatus: 400 | 409): void {
  if (!repoOf(ctx).markExecuted(row.id, ctx.clock.iso())) {
    throw new ApiError(conflictStatus, claimCode(conflictStatus), `Quote ${row.id} was already executed.`, { reason: 'QUOTE_ALREADY_EXECUTED' });
  }
}

/** Claims an unexecuted, unexpired quote for execution (or funding), or throws the contract's error. */
function claim(ctx: SandboxContext, row: QuoteRow, conflictStatus: 400 | 409): void {
  assertClaimable(ctx, row, conflictStatus);
  markClaimed(ctx, row, conflictStatus);
}

const money = (amount: number, currency: Pricing['sendingCurrency']) => ({ amount, currency });

/** The outgoing transaction of a quote, in the contract's OutgoingTransaction shape. */
function outgoingFields(row: QuoteRow, plan: Plan, status: string): Record<string, unknown> & { status: string; type: 'OUTGOING'; customerId: string; platformCustomerId: string } {
  const { pricing } = plan;
  const rule = ruleOf(plan.destination);
  const destination = plan.destination;
  return {
    id: row.transaction_id,
    status,
    type: 'OUTGOING',
    direction: 'DEBIT',
    source:
      plan.source.kind === 'ACCOUNT'
        ? { sourceType: 'ACCOUNT', accountId: plan.source.accountId, currency: plan.source.currency }
        : { sourceType: 'REALTIME_FUNDING', currency: plan.source.currency, ...(plan.owner.customerId.startsWith('Customer:') ? { customerId: plan.owner.customerId } : {}) },
    destination:
      destination.kind === 'UMA' || destination.umaAddress
        ? { destinationType: 'UMA_ADDRESS', umaAddress: destination.umaAddress!, currency: destination.currency }
        : { destinationType: 'ACCOUNT', accountId: destination.accountId, currency: destination.currency },
    ...plan.owner,
    sentAmount: money(pricing.totalSendingAmount, pricing.sendingCurrency),
    receivedAmount: money(pricing.totalReceivingAmount, pricing.receivingCurrency),
    exchangeRate: pricing.exchangeRate,
    fees: pricing.feesIncluded,
    platformFees: pricing.platformFeesIncluded,
    quoteId: row.id,
    rateDetails: pricing.rateDetails,
    description: plan.description ?? plan.remittanceInformation ?? rule?.description ?? 'Cross-currency payment',
    reconciliationInstructions: { reference: `SBX-${row.transaction_id.slice(-12).toUpperCase()}` },
    ...(plan.destination.kind === 'EXTERNAL' && plan.destination.rail ? { paymentRail: plan.destination.rail, railSelectionMode: 'AUTO' } : {}),
    ...(plan.purposeOfPayment ? { purposeOfPayment: plan.purposeOfPayment } : {}),
  };
}

/**
 * Moves the money and records the transactions once a quote is claimed: to an internal
 * account it settles at once (and the receiver gets an incoming transaction); to an external
 * account it is held and the suffix rule's steps run on the sandbox clock.
 */
function startPayout(ctx: SandboxContext, platform: Platform, row: QuoteRow, plan: Plan): TransactionBody {
  const { pricing } = plan;
  const fromAccount = plan.source.kind === 'ACCOUNT' ? plan.source.accountId : undefined;
  if (plan.destination.kind === 'INTERNAL') {
    const destination = plan.destination;
    // Read before the first write: a refusal (the receiving customer gone) writes nothing.
    const receiver: AccountOwner = destination.customerId === null
      ? { customerId: platform.id, platformCustomerId: 'PLATFORM' }
      : { customerId: destination.customerId, platformCustomerId: getCustomer(ctx, platform.id, destination.customerId).platformCustomerId };
    const legs = [
      { account: worldAccount(pricing.sendingCurrency.code), currency: pricing.sendingCurrency.code, amount: pricing.totalSendingAmount },
      { account: worldAccount(pricing.receivingCurrency.code), currency: pricing.receivingCurrency.code, amount: -pricing.totalReceivingAmount },
      { account: bucketOf(destination.accountId), currency: pricing.receivingCurrency.code, amount: pricing.totalReceivingAmount },
    ];
    post(ctx, platform.id, row.transaction_id, fromAccount
      ? [{ account: bucketOf(fromAccount), currency: pricing.sendingCurrency.code, amount: -pricing.totalSendingAmount }, ...legs]
      : [{ account: worldAccount(pricing.sendingCurrency.code), currency: pricing.sendingCurrency.code, amount: -pricing.totalSendingAmount }, ...legs]);
    const outgoing = recordOutgoing(ctx, platform.id, outgoingFields(row, plan, 'COMPLETED'));
    recordTransaction(ctx, platform.id, {
      status: 'COMPLETED',
      type: 'INCOMING',
      direction: 'CREDIT',
      source: fromAccount ? { sourceType: 'ACCOUNT', accountId: fromAccount, currency: pricing.sendingCurrency.code } : { sourceType: 'REALTIME_FUNDING', currency: pricing.sendingCurrency.code },
      destination: { destinationType: 'ACCOUNT', accountId: destination.accountId, currency: destination.currency },
      ...receiver,
      sentAmount: money(pricing.totalSendingAmount, pricing.sendingCurrency),
      receivedAmount: money(pricing.totalReceivingAmount, pricing.receivingCurrency),
      exchangeRate: pricing.exchangeRate,
      fees: 0,
      quoteId: row.id,
      description: plan.description ?? 'Cross-currency payment received',
      reconciliationInstructions: { reference: `SBX-${row.transaction_id.slice(-12).toUpperCase()}` },
    });
    setQuoteStatus(ctx, row, 'COMPLETED');
    return outgoing;
  }
  const rule = ruleOf(plan.destination)!;
  recordRule(ctx, platform.id, payoutRuleIdOf(plan.destination));
  if (rule.failAtExecution) {
    const failed = recordOutgoing(ctx, platform.id, { ...outgoingFields(row, plan, 'FAILED'), failureReason: rule.failAtExecution.failureReason });
    setQuoteStatus(ctx, row, 'FAILED');
    return failed;
  }
  if (fromAccount) move(ctx, platform.id, row.transaction_id, bucketOf(fromAccount), bucketOf(fromAccount, 'held'), pricing.sendingCurrency.code, pricing.totalSendingAmount);
  const transaction = recordOutgoing(ctx, platform.id, outgoingFields(row, plan, 'PROCESSING'));
  scheduleStep(ctx, platform.id, row.id, 0, rule.steps[0]);
  return transaction;
}

function scheduleStep(ctx: SandboxContext, platformId: string, quoteId: string, index: number, step: PayoutStep | undefined): void {
  if (step) ctx.scheduler.schedule(platformId, PAYOUT_STEP_JOB, step.afterSeconds * 1000, { quoteId, index });
}

/** How a quote is executed: the SCA factor asked for, whether at creation (`immediatelyExecute`), and the wallet stamp. */
export interface ExecuteOptions {
  scaFactor?: QuoteAuthorizationRequest['preferredFactor'];
  /** Executed by `immediatelyExecute` at creation: SCA is checked at authorization instead of needing a live session. */
  immediately?: boolean;
  /** The wallet stamp (`Service-Wallet-Signature` or `Grid-Wallet-Signature`), for an embedded-wallet source. */
  walletSignature?: string;
}

/**
 * `POST /quotes/{quoteId}/execute`: for an internal-account source, checks the balance, debits
 * or holds and records the transaction in one SQLite transaction. Executing twice or after
 * `expiresAt` is `409`; without funds `400 INVALID_AMOUNT`; none of them writes anything. Every
 * refusal comes before the first write (`checksFirst`), in the order: the quote, its source, the
 * wallet stamp, claimable, the owner, SCA, the funds.
 */
export function executeQuote(ctx: SandboxContext, platform: Platform, quoteId: string, options: ExecuteOptions = {}): Record<string, unknown> {
  const { scaFactor, immediately = false, walletSignature } = options;
  return ctx.tx(() => {
    const row = quoteRow(ctx, platform.id, quoteId);
    const plan = JSON.parse(row.plan) as Plan;
    if (plan.source.kind !== 'ACCOUNT') {
      throw new ApiError(400, ErrorCode.INVALID_INPUT, `Quote ${quoteId} is funded in real time: pay its paymentInstructions (in the sandbox, POST /sandbox/send) instead of executing it.`);
    }
    const source = plan.source;
    const sourceAccount = internalAccountOf(ctx, platform.id, source.accountId);
    // Wallet-auth guard: an embedded-wallet source needs a stamp over the quote's payloadToSign.
    if (sourceAccount.type === 'EMBEDDED_WALLET') {
      const payloadToSign = embeddedPayloadOf(row);
      for (const guard of quoteGuards) guard.authorizeWalletPayment?.(ctx, sourceAccount.id, payloadToSign, walletSignature);
    }
    assertClaimable(ctx, row, 409);
    ownerForMovement(ctx, platform, sourceAccount);
    // The funds the send needs: checked after SCA's refusals and before any write (a challenge
    // held for a send the account cannot cover, or the payout's own posting, would refuse later).
    const total = plan.pricing.totalSendingAmount;
    const covered = () => {
      const available = ledgerBalance(ctx, bucketOf(source.accountId));
      if (available < total) throw insufficientFunds(source.accountId, available, total, source.currency);
    };
    // SCA (issue 14): an in-scope customer authorizes the send (POST /quotes/{id}/authorize) before any money moves.
    const scaChallenge = requireAuthorization(ctx, platform, { ...scaRequestOf(row.id, plan, 'EXECUTE', scaFactor), sessionRequired: !immediately, beforeChallenge: covered });
    if (!scaChallenge && debitsAtOnce(plan)) covered();
    markClaimed(ctx, row, 409);
    if (scaChallenge) {
      const body = JSON.parse(row.body) as Record<string, unknown>;
      repoOf(ctx).update(row.id, 'PENDING_AUTHORIZATION', JSON.stringify({ ...body, status: 'PENDING_AUTHORIZATION', scaChallenge }));
      recordTransaction(ctx, platform.id, outgoingFields(row, plan, 'PENDING_AUTHORIZATION'));
      return present(ctx, quoteRow(ctx, platform.id, quoteId));
    }
    startPayout(ctx, platform, row, plan);
    return present(ctx, quoteRow(ctx, platform.id, quoteId));
  }, { checksFirst: true });
}

/** Whether `startPayout` debits the source now: it does unless the payout fails at execution (`failAtExecution`). */
function debitsAtOnce(plan: Plan): boolean {
  return plan.destination.kind === 'INTERNAL' || !ruleOf(plan.destination)!.failAtExecution;
}

/** The `payloadToSign` of a quote's EMBEDDED_WALLET payment instructions ('' when it has none). */
function embeddedPayloadOf(row: QuoteRow): string {
  const instructions = (JSON.parse(row.body) as { paymentInstructions?: { accountOrWalletInfo: { accountType: string; payloadToSign?: string } }[] }).paymentInstructions ?? [];
  return instructions.find((entry) => entry.accountOrWalletInfo.accountType === 'EMBEDDED_WALLET')?.accountOrWalletInfo.payloadToSign ?? '';
}

/**
 * `POST /sandbox/send`: simulates the payer paying a real-time-funded quote's instructions.
 * The amount must match `totalSendingAmount` in the sending currency, or the payment fails
 * with `FUNDING_AMOUNT_MISMATCH` (and the money goes back to the payer).
 */
export function sandboxSend(ctx: SandboxContext, platform: Platform, request: { quoteId: string; currencyCode: string; currencyAmount?: number | undefined }): TransactionBody {
  return ctx.tx(() => {
    const row = quoteRow(ctx, platform.id, request.quoteId);
    const plan = JSON.parse(row.plan) as Plan;
    if (plan.source.kind !== 'REALTIME_FUNDING') {
      throw new ApiError(400, ErrorCode.INVALID_INPUT, `Quote ${row.id} draws on an internal account; execute it with POST /quotes/${row.id}/execute.`);
    }
    if (request.currencyCode !== plan.pricing.sendingCurrency.code) {
      throw new ApiError(400, 'INVALID_CURRENCY', `Quote ${row.id} is paid in ${plan.pricing.sendingCurrency.code}, not ${request.currencyCode}.`, {
        errors: [{ field: 'currencyCode', constraint: { enum: [plan.pricing.sendingCurrency.code] }, message: `Send ${plan.pricing.sendingCurrency.code}.` }],
      });
    }
    if (row.status === 'PENDING_AUTHORIZATION') {
      throw new ApiError(400, ErrorCode.INVALID_INPUT, `Quote ${row.id} is PENDING_AUTHORIZATION: authorize its scaChallenge (POST /quotes/${row.id}/authorize) to get its payment instructions first.`, { reason: 'SCA_AUTHORIZATION_REQUIRED' });
    }
    claim(ctx, row, 400);
    const amount = request.currencyAmount ?? plan.pricing.totalSendingAmount;
    if (amount !== plan.pricing.totalSendingAmount) {
      setQuoteStatus(ctx, row, 'FAILED');
      return recordOutgoing(ctx, platform.id, { ...outgoingFields(row, plan, 'FAILED'), failureReason: 'FUNDING_AMOUNT_MISMATCH' });
    }
    return startPayout(ctx, platform, row, plan);
  });
}

/** One scheduled step of a payout; a step whose transaction moved on (cancelled) does nothing. */
export function runPayoutStep(ctx: SandboxContext, platformId: string, quoteId: string, index: number): void {
  const row = repoOf(ctx).byId(platformId, quoteId);
  if (!row) return;
  const plan = JSON.parse(row.plan) as Plan;
  const rule = ruleOf(plan.destination);
  if (!rule) return;
  const steps = rule.steps;
  const step = steps[index];
  if (!step) return;
  const transaction = getTransaction(ctx, platformId, row.transaction_id);
  const { pricing } = plan;
  const fromAccount = plan.source.kind === 'ACCOUNT' ? plan.source.accountId : undefined;
  const code = pricing.sendingCurrency.code;
  const refund = (status: 'COMPLETED' | 'FAILED', reason: string) => ({
    reference: `RFD-${row.transaction_id.slice(-12).toUpperCase()}`,
    initiatedAt: ctx.clock.iso(),
    ...(status === 'COMPLETED' ? { settledAt: ctx.clock.iso() } : {}),
    status,
    reason,
  });
  if (step.kind === 'complete') {
    if (transaction.status !== 'PROCESSING') return;
    if (fromAccount) move(ctx, platformId, row.transaction_id, bucketOf(fromAccount, 'held'), worldAccount(code), code, pricing.totalSendingAmount);
    updateTransaction(ctx, platformId, row.transaction_id, { status: 'COMPLETED' });
    setQuoteStatus(ctx, row, 'COMPLETED');
  } else if (step.kind === 'fail') {
    if (transaction.status !== 'PROCESSING') return;
    if (fromAccount) {
      move(ctx, platformId, row.transaction_id, bucketOf(fromAccount, 'held'), step.refund === 'COMPLETED' ? bucketOf(fromAccount) : worldAccount(code), code, pricing.totalSendingAmount);
    }
    updateTransaction(ctx, platformId, row.transaction_id, { status: 'FAILED', failureReason: step.failureReason, refund: refund(step.refund, step.refundReason) });
    setQuoteStatus(ctx, row, 'FAILED');
  } else {
    if (transaction.status !== 'COMPLETED') return;
    // The receiving bank returned the payout: the money comes back to the source.
    if (fromAccount) move(ctx, platformId, row.transaction_id, worldAccount(code), bucketOf(fromAccount), code, pricing.totalSendingAmount);
    updateTransaction(ctx, platformId, row.transaction_id, { status: 'FAILED', failureReason: 'PAYOUT_RETURNED', refund: refund('COMPLETED', 'TRANSACTION_FAILED') });
    setQuoteStatus(ctx, row, 'FAILED');
  }
  scheduleStep(ctx, platformId, quoteId, index + 1, steps[index + 1]);
}

/**
 * `POST /transactions/{id}/cancel`: an outgoing payment that has not settled (PENDING or
 * PROCESSING) is cancelled, its held funds released; anything else is `409 TRANSACTION_NOT_CANCELLABLE`.
 */
export function cancelTransaction(ctx: SandboxContext, platform: Platform, transactionId: string, reason: string | undefined): TransactionBody {
  return ctx.tx(() => {
    const transaction = getTransaction(ctx, platform.id, transactionId);
    if (transaction.type !== 'OUTGOING' || (transaction.status !== 'PENDING' && transaction.status !== 'PROCESSING')) {
      throw new ApiError(409, 'TRANSACTION_NOT_CANCELLABLE', `Transaction ${transactionId} is ${transaction.type} ${transaction.status}: it has settled or is past the point where it can be cancelled.`);
    }
    const source = transaction.source as { sourceType: string; accountId?: string; currency?: string };
    const sent = transaction.sentAmount as { amount: number; currency: { code: string } };
    if (source.sourceType === 'ACCOUNT' && source.accountId) {
      move(ctx, platform.id, transactionId, bucketOf(source.accountId, 'held'), bucketOf(source.accountId), sent.currency.code, sent.amount);
    }
    const now = ctx.clock.iso();
    const updated = updateTransaction(ctx, platform.id, transactionId, {
      status: 'FAILED',
      refund: { reference: `RFD-${transactionId.slice(-12).toUpperCase()}`, initiatedAt: now, settledAt: now, status: 'COMPLETED', reason: 'USER_CANCELLATION' },
      ...(reason ? { description: `${String(transaction.description ?? 'Payment')} (cancelled: ${reason})` } : {}),
    });
    const quote = repoOf(ctx).byTransaction(platform.id, transactionId);
    if (quote) setQuoteStatus(ctx, quote, 'FAILED');
    return updated;
  });
}

/** `POST /transactions/{id}/confirm`: records (or moves) the receipt-delivery time. */
export function confirmReceipt(ctx: SandboxContext, platform: Platform, transactionId: string, at: string | undefined): TransactionBody {
  return ctx.tx(() => {
    getTransaction(ctx, platform.id, transactionId);
    return updateTransaction(ctx, platform.id, transactionId, { receiptDeliveryConfirmedAt: at === undefined ? ctx.clock.iso() : new Date(at).toISOString() });
  });
}

/** What the SCA guard needs to know about a quote (issue 14). */
function scaRequestOf(quoteId: string, plan: Plan, phase: QuoteAuthorizationRequest['phase'], preferredFactor: QuoteAuthorizationRequest['preferredFactor']): QuoteAuthorizationRequest {
  const customerId = plan.owner.customerId.startsWith('Customer:') ? plan.owner.customerId : null;
  const destination = plan.destination;
  return {
    quoteId,
    customerId,
    phase,
    crossCurrency: plan.pricing.sendingCurrency.code !== plan.pricing.receivingCurrency.code,
    externalAccountId: destination.kind === 'EXTERNAL' ? destination.accountId : undefined,
    ownAccount: destination.kind === 'INTERNAL' && customerId !== null && destination.customerId === customerId,
    preferredFactor,
    sessionRequired: phase === 'EXECUTE',
  };
}

/** Records the quote's outgoing transaction, or moves on the one recorded while the quote awaited SCA authorization. */
function recordOutgoing(ctx: SandboxContext, platformId: string, fields: NewTransaction): TransactionBody {
  const id = String(fields.id);
  const existing = findTransaction(ctx, platformId, id);
  return existing ? updateTransaction(ctx, platformId, id, fields) : recordTransaction(ctx, platformId, fields);
}

/**
 * SCA (issue 14), called by the SCA area once a quote's challenge is answered: with the next
 * step's challenge the quote stays PENDING_AUTHORIZATION carrying it; after the last step a
 * real-time-funded quote gets its payment instructions (its transaction PENDING, awaiting
 * funds), a pre-funded send starts its payout.
 */
export function advanceQuoteAuthorization(ctx: SandboxContext, platform: Platform, quoteId: string, nextChallenge: Record<string, unknown> | undefined): Record<string, unknown> {
  const row = quoteRow(ctx, platform.id, quoteId);
  const plan = JSON.parse(row.plan) as Plan;
  const body = JSON.parse(row.body) as Record<string, unknown>;
  if (row.status !== 'PENDING_AUTHORIZATION') throw new ApiError(409, ErrorCode.CONFLICT, `Quote ${quoteId} is ${row.status}, not PENDING_AUTHORIZATION.`);
  if (nextChallenge) {
    repoOf(ctx).update(row.id, row.status, JSON.stringify({ ...body, scaChallenge: nextChallenge }));
    return present(ctx, quoteRow(ctx, platform.id, quoteId));
  }
  delete body.scaChallenge;
  if (plan.source.kind === 'REALTIME_FUNDING') {
    if (ctx.clock.now() >= row.expires_at) {
      throw new ApiError(409, ErrorCode.CONFLICT, `Quote ${row.id} expired at ${new Date(row.expires_at).toISOString()}; request a new quote.`, { reason: 'QUOTE_EXPIRED' });
    }
    const instructions = fundingInstructions(row.id, plan.source.currency, !plan.owner.customerId.startsWith('Customer:'));
    repoOf(ctx).update(row.id, 'PROCESSING', JSON.stringify({ ...body, status: 'PROCESSING', paymentInstructions: instructions }));
    updateTransaction(ctx, platform.id, row.transaction_id, { status: 'PENDING' });
  } else {
    repoOf(ctx).update(row.id, 'PROCESSING', JSON.stringify({ ...body, status: 'PROCESSING' }));
    startPayout(ctx, platform, quoteRow(ctx, platform.id, quoteId), plan);
  }
  return present(ctx, quoteRow(ctx, platform.id, quoteId));
}

/** SCA (issue 14): a quote whose challenge expired unanswered expires, and its transaction with it. */
export function expireQuoteAuthorization(ctx: SandboxContext, platformId: string, quoteId: string): void {
  const row = repoOf(ctx).byId(platformId, quoteId);
  if (!row || row.status !== 'PENDING_AUTHORIZATION') return;
  const body = JSON.parse(row.body) as Record<string, unknown>;
  delete body.scaChallenge;
  repoOf(ctx).update(row.id, 'EXPIRED', JSON.stringify({ ...body, status: 'EXPIRED' }));
  updateTransaction(ctx, platformId, row.transaction_id, { status: 'EXPIRED' });
}

/**
 * `POST /transactions/{id}/approve` and `/reject` of a payment a guard holds pending (an agent's
 * action awaiting the platform): the guard's answer, or undefined when no guard holds it.
 */
export function decidePendingPayment(ctx: SandboxContext, platform: Platform, transactionId: string, decision: 'APPROVE' | 'REJECT', reason?: string): Record<string, unknown> | undefined {
  return guardAnswer((guard) => guard.decidePendingPayment?.(ctx, platform, transactionId, decision, reason));
}

/** Wipes a platform's quotes (sandbox reset). */
export function removePlatformQuotes(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}
