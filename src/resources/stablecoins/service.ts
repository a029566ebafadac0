import { createHash } from 'node:crypto';
import { ApiError, ErrorCode, invalidInput, notFound } from '../../core/errors.js';
import { decodeCursor, paginate, type Page } from '../../core/pagination.js';
import { perContext } from '../../core/per-context.js';
import type { SandboxContext } from '../../store/context.js';
import {
  FUNDING_WINDOW_SECONDS,
  STABLECOIN_BASE_CURRENCY,
  STABLECOIN_DECIMALS,
  issuanceRuleIds,
  issuanceRules,
  issuanceStatusOf,
  issuanceStepSeconds,
  amountRuleIds,
  operationLimitsCents,
  payoutTiming,
  providerCredentialOutcome,
  providerCredentialRuleIds,
  providerCredentialRules,
  providerUnavailable,
  settlementDelaySeconds,
} from '../../rules/stablecoin-rules.js';
import { recordRule } from '../../store/coverage.js';
import { getExternalAccountFor } from '../external-accounts/index.js';
import { internalAccountRepo } from '../internal-accounts/index.js';
import { bucketOf, ledgerBalance, move, worldAccount } from '../ledger/index.js';
import type { Platform } from '../../tenancy/index.js';
import { StablecoinRepo, type OperationRow, type ProviderAccountRow, type StablecoinRow } from './repo.js';
import type {
  OperationsQuery,
  ProviderAccountLinkRequest,
  ProviderAccountsQuery,
  ServiceOperationsStatus,
  StablecoinBurnRequest,
  StablecoinMintRequest,
  StablecoinRegisterRequest,
  StablecoinsQuery,
} from './schemas.js';

const NOT_FOUND_ACCOUNT = 'STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND';
const REFERENCE_NOT_FOUND = 'REFERENCE_NOT_FOUND';
/** Job kinds of this area. */
export const COMPLETE_OPERATION_JOB = 'stablecoin.operation.complete';
export const EXPIRE_OPERATION_JOB = 'stablecoin.operation.expire';
export const ISSUANCE_STEP_JOB = 'stablecoin.issuance.step';

const repoOf = perContext((ctx: SandboxContext) => new StablecoinRepo(ctx.db));
// The sandbox is the provider's sandbox environment for every platform.
const PROVIDER_ENVIRONMENT = 'SANDBOX';

/** Ledger accounts of a stablecoin: the fiat reserve (cents of the base currency) and the tokens in circulation outside the Service. */
export const reserveAccount = (stablecoinId: string) => `stablecoin:${stablecoinId}:reserve`;
export const circulatingAccount = (stablecoinId: string) => `stablecoin:${stablecoinId}:circulating`;

// ---------------------------------------------------------------- provider account links

function presentAccount(row: ProviderAccountRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    provider: row.provider,
    providerAccountId: row.provider_account_id,
    providerEnvironment: row.provider_environment,
    status: row.status,
  };
  if (row.last_verified_at !== null) out.lastVerifiedAt = row.last_verified_at;
  out.createdAt = row.created_at;
  out.updatedAt = row.updated_at;
  return out;
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/**
 * `POST /stablecoin-provider-accounts`: verifies the provider credentials (sandbox rules in
 * src/rules/stablecoin-rules.ts) and links the provider account. The sandbox keeps only a
 * SHA-256 of the provider secret (the service stores it encrypted to call the provider; the
 * sandbox never calls out).
 */
export function linkProviderAccount(ctx: SandboxContext, platform: Platform, request: ProviderAccountLinkRequest): Record<string, unknown> {
  const outcome = providerCredentialOutcome(request.apiClientId);
  recordRule(ctx, platform.id, providerCredentialRuleIds.of(providerCredentialRules.find((rule) => request.apiClientId.toLowerCase().endsWith(rule.suffix))?.suffix ?? 'other'));
  if (outcome === 'INVALID') {
    throw new ApiError(400, 'STABLECOIN_PROVIDER_ACCOUNT_INVALID', 'The provider rejected these API credentials.', { provider: request.provider });
  }
  const derived = `brale-${sha256(request.apiClientId).slice(0, 16)}`;
  const exposed = outcome === 'MULTIPLE_ACCOUNTS' ? [`${derived}-a`, `${derived}-b`] : [derived];
  let providerAccountId = request.providerAccountId;
  if (providerAccountId === undefined) {
    if (exposed.length > 1) {
      throw invalidInput('These credentials expose several provider accounts: pass providerAccountId.', [
        { field: 'providerAccountId', constraint: { enum: exposed }, message: 'One of the provider accounts the credentials expose.' },
      ]);
    }
    providerAccountId = exposed[0]!;
  } else if (!exposed.includes(providerAccountId)) {
    throw new ApiError(400, 'STABLECOIN_PROVIDER_ACCOUNT_INVALID', `The credentials do not give access to provider account ${providerAccountId}.`, {
      providerAccountId,
    });
  }
  return ctx.tx(() => {
    const repo = repoOf(ctx);
    if (repo.activeAccountFor(platform.id, request.provider, providerAccountId)) {
      throw new ApiError(409, ErrorCode.CONFLICT, `Provider account ${providerAccountId} is already linked and active.`, { providerAccountId });
    }
    const now = ctx.clock.iso();
    const row: ProviderAccountRow = {
      id: ctx.ids.next('StablecoinProviderAccount'),
      platform_id: platform.id,
      provider: request.provider,
      provider_account_id: providerAccountId,
      provider_environment: PROVIDER_ENVIRONMENT,
      status: 'ACTIVE',
      api_client_id: request.apiClientId,
      secret_hash: sha256(request.apiClientSecret),
      last_verified_at: now,
      created_at: now,
      updated_at: now,
    };
    repo.insertAccount(row);
    return presentAccount(row);
  });
}

function findAccount(ctx: SandboxContext, platformId: string, id: string): ProviderAccountRow {
  const row = repoOf(ctx).accountById(platformId, id);
  if (!row) throw notFound(NOT_FOUND_ACCOUNT, `Stablecoin provider account link ${id} not found.`);
  return row;
}

/** `GET /stablecoin-provider-accounts/{id}`. */
export function getProviderAccount(ctx: SandboxContext, platform: Platform, id: string): Record<string, unknown> {
  return presentAccount(findAccount(ctx, platform.id, id));
}

/** `GET /stablecoin-provider-accounts`. */
export function listProviderAccounts(ctx: SandboxContext, platform: Platform, query: ProviderAccountsQuery): Page<Record<string, unknown>> {
  const filters = { provider: query.provider, status: query.status };
  const pages = repoOf(ctx).accountPages;
  return paginate(
    query,
    ({ afterKey, take }) => pages.page<ProviderAccountRow>(platform.id, filters, afterKey, take),
    () => pages.count(platform.id, filters),
    (row) => row.id,
    presentAccount,
  );
}

/** Control plane: the provider's view of a link changes (e.g. the platform revoked the API key at Brale). */
export function setProviderAccountStatus(ctx: SandboxContext, platform: Platform, id: string, status: 'ACTIVE' | 'INVALID' | 'REVOKED'): Record<string, unknown> {
  return ctx.tx(() => {
    const row = findAccount(ctx, platform.id, id);
    const now = ctx.clock.iso();
    repoOf(ctx).setAccountStatus(id, status, now);
    return presentAccount({ ...row, status, updated_at: now, last_verified_at: status === 'ACTIVE' ? now : row.last_verified_at });
  });
}

/** A link usable for provider calls, or the contract's 400 for an INVALID or REVOKED one. */
function usable(row: ProviderAccountRow): ProviderAccountRow {
  if (row.status === 'REVOKED') throw new ApiError(400, 'STABLECOIN_PROVIDER_ACCOUNT_REVOKED', `Provider account link ${row.id} has been revoked.`);
  if (row.status === 'INVALID') throw new ApiError(400, 'STABLECOIN_PROVIDER_ACCOUNT_INVALID', `Provider account link ${row.id} is not usable.`);
  return row;
}

// ---------------------------------------------------------------- stablecoins

function presentCoin(row: StablecoinRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    name: row.name,
    symbol: row.symbol,
    baseCurrency: row.base_currency,
    network: row.network,
    decimals: row.decimals,
    issuanceStatus: row.issuance_status,
    serviceOperationsStatus: row.service_operations_status,
    networkTokenIdentifier: row.network_token_identifier,
  };
  if (row.service_operations_status === 'ENABLED') out.currency = row.symbol;
  out.provider = row.provider;
  out.stablecoinProviderAccountId = row.provider_account_id;
  out.providerEnvironment = row.provider_environment;
  out.providerTokenIdentifier = row.provider_token_identifier;
  out.createdAt = row.created_at;
  out.updatedAt = row.updated_at;
  return out;
}

/** `POST /stablecoins`: registers an existing provider token against the platform's (selected) active link. */
export function registerStablecoin(ctx: SandboxContext, platform: Platform, request: StablecoinRegisterRequest): Record<string, unknown> {
  return ctx.tx(() => {
    const repo = repoOf(ctx);
    let link: ProviderAccountRow;
    if (request.stablecoinProviderAccountId !== undefined) {
      link = usable(findAccount(ctx, platform.id, request.stablecoinProviderAccountId));
    } else {
      const active = repo.activeAccounts(platform.id);
      if (active.length === 0) throw notFound(NOT_FOUND_ACCOUNT, 'No active stablecoin provider account link: link one with POST /stablecoin-provider-accounts.');
      if (active.length > 1) {
        throw new ApiError(400, 'STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED', 'Several active provider account links exist: pass stablecoinProviderAccountId.');
      }
      link = active[0]!;
    }
    if (repo.coinByToken(platform.id, request.network, request.networkTokenIdentifier)) {
      throw new ApiError(409, ErrorCode.CONFLICT, `A stablecoin with ${request.network} token ${request.networkTokenIdentifier} is already registered.`);
    }
    const now = ctx.clock.iso();
    const symbol = request.providerTokenIdentifier.replace(/[^A-Za-z0-9]/g, '').toUpperCase().slice(0, 12) || 'TOKEN';
    const row: StablecoinRow = {
      id: ctx.ids.next('Stablecoin'),
      platform_id: platform.id,
      provider_account_id: link.id,
      provider: link.provider,
      provider_environment: link.provider_environment,
      provider_token_identifier: request.providerTokenIdentifier,
      network: request.network,
      network_token_identifier: request.networkTokenIdentifier,
      name: `${symbol} Stablecoin`,
      symbol,
      base_currency: STABLECOIN_BASE_CURRENCY,
      decimals: STABLECOIN_DECIMALS,
      issuance_status: issuanceStatusWithRule(ctx, platform.id, request.providerTokenIdentifier),
      service_operations_status: 'NOT_ENABLED',
      created_at: now,
      updated_at: now,
    };
    repo.insertCoin(row);
    if (row.issuance_status === 'PENDING_REVIEW') ctx.scheduler.schedule(platform.id, ISSUANCE_STEP_JOB, issuanceStepSeconds * 1000, { stablecoinId: row.id });
    return presentCoin(row);
  });
}

function findCoin(ctx: SandboxContext, platformId: string, id: string): StablecoinRow {
  const row = repoOf(ctx).coinById(platformId, id);
  // The contract's Error404 has no stablecoin code; REFERENCE_NOT_FOUND is the closest it lists.
  if (!row) throw notFound(REFERENCE_NOT_FOUND, `Stablecoin ${id} not found.`);
  return row;
}

/** `GET /stablecoins/{id}`. */
export function getStablecoin(ctx: SandboxContext, platform: Platform, id: string): Record<string, unknown> {
  return presentCoin(findCoin(ctx, platform.id, id));
}

/** `GET /stablecoins`. */
export function listStablecoins(ctx: SandboxContext, platform: Platform, query: StablecoinsQuery): Page<Record<string, unknown>> {
  const filters = { issuance_status: query.issuanceStatus, service_operations_status: query.serviceOperationsStatus, provider: query.provider };
  const pages = repoOf(ctx).coinPages;
  return paginate(
    query,
    ({ afterKey, take }) => pages.page<StablecoinRow>(platform.id, filters, afterKey, take),
    () => pages.count(platform.id, filters),
    (row) => row.id,
    presentCoin,
  );
}

/** Job: the provider's next issuance step, PENDING_REVIEW -> PROVISIONING -> PROVISIONED. */
export function advanceIssuance(ctx: SandboxContext, platformId: string, stablecoinId: string): void {
  ctx.tx(() => {
    const row = repoOf(ctx).coinById(platformId, stablecoinId);
    if (!row) return;
    const next = row.issuance_status === 'PENDING_REVIEW' ? 'PROVISIONING' : row.issuance_status === 'PROVISIONING' ? 'PROVISIONED' : undefined;
    if (!next) return;
    repoOf(ctx).setIssuanceStatus(stablecoinId, next, ctx.clock.iso());
    if (next === 'PROVISIONING') ctx.scheduler.schedule(platformId, ISSUANCE_STEP_JOB, issuanceStepSeconds * 1000, { stablecoinId });
  });
}

/**
 * API.md "Stablecoin the service enablement": a request is accepted only from NOT_ENABLED
 * (-> PENDING_APPROVAL) and repeating it while PENDING_APPROVAL succeeds; otherwise
 * `409 STABLECOIN_SERVICE_ENABLEMENT_NOT_REQUESTABLE`.
 */
export function requestEnablement(ctx: SandboxContext, platform: Platform, id: string): Record<string, unknown> {
  return ctx.tx(() => {
    const row = findCoin(ctx, platform.id, id);
    if (row.service_operations_status === 'PENDING_APPROVAL') return presentCoin(row);
    if (row.service_operations_status !== 'NOT_ENABLED') {
      throw new ApiError(409, 'STABLECOIN_SERVICE_ENABLEMENT_NOT_REQUESTABLE', `Stablecoin ${id} is ${row.service_operations_status}; enablement can only be requested from NOT_ENABLED.`, {
        serviceOperationsStatus: row.service_operations_status,
      });
    }
    const now = ctx.clock.iso();
    repoOf(ctx).setCoinStatus(id, 'PENDING_APPROVAL', now);
    return presentCoin({ ...row, service_operations_status: 'PENDING_APPROVAL', updated_at: now });
  });
}

/** Which operator decisions may follow which status (API.md: ENABLING, ENABLED, DISABLED are set by the operator). */
const operatorTransitions: Readonly<Record<string, readonly ServiceOperationsStatus[]>> = {
  NOT_ENABLED: ['DISABLED'],
  PENDING_APPROVAL: ['ENABLING', 'ENABLED', 'DISABLED'],
  ENABLING: ['ENABLED', 'DISABLED'],
  ENABLED: ['DISABLED'],
  DISABLED: ['ENABLING', 'ENABLED'],
};

/** Control plane: the operator sets ENABLING, ENABLED or DISABLED (`409 INVALID_STATE_TRANSITION` for other moves). */
export function setServiceOperationsStatus(ctx: SandboxContext, platform: Platform, id: string, status: 'ENABLING' | 'ENABLED' | 'DISABLED'): Record<string, unknown> {
  return ctx.tx(() => {
    const row = findCoin(ctx, platform.id, id);
    if (row.service_operations_status === status) return presentCoin(row);
    if (!operatorTransitions[row.service_operations_status]?.includes(status)) {
      throw new ApiError(409, 'INVALID_STATE_TRANSITION', `The operator cannot move stablecoin ${id} from ${row.service_operations_status} to ${status}.`);
    }
    if (status !== 'DISABLED' && row.issuance_status !== 'PROVISIONED') {
      throw new ApiError(409, 'INVALID_STATE_TRANSITION', `Stablecoin ${id} is ${row.issuance_status} at the provider and cannot be enabled.`);
    }
    const now = ctx.clock.iso();
    repoOf(ctx).setCoinStatus(id, status, now);
    return presentCoin({ ...row, service_operations_status: status, updated_at: now });
  });
}

// ---------------------------------------------------------------- operations

/** What the sandbox keeps beside the presented operation: the ledger legs still to post. */
interface OperationState {
  view: Record<string, unknown>;
  cents: number;
  units: number;
  /** Where the fiat comes from at completion (a mint), or where tokens are held (a burn). */
  fiatFrom?: string;
  tokenTo?: string;
  tokenHeld?: string;
  tokenHeldFrom?: string;
  fiatHeldFrom?: string;
  delaySeconds: number;
}

const stateOf = (row: OperationRow) => JSON.parse(row.body) as OperationState;

/** The issuance status of a new stablecoin, recorded as its rule. */
function issuanceStatusWithRule(ctx: SandboxContext, platformId: string, providerTokenIdentifier: string): ReturnType<typeof issuanceStatusOf> {
  recordRule(ctx, platformId, issuanceRuleIds.of(issuanceRules.find((rule) => providerTokenIdentifier.toLowerCase().endsWith(rule.suffix))?.suffix ?? 'other'));
  return issuanceStatusOf(providerTokenIdentifier);
}

function checkAmount(ctx: SandboxContext, platformId: string, amount: string): { units: number; cents: number } {
  const units = Number(amount);
  const perCent = 10 ** (STABLECOIN_DECIMALS - 2);
  const refuse = (rule: 'out-of-range' | 'not-whole-cents') => recordRule(ctx, platformId, amountRuleIds.id(rule));
  if (!Number.isSafeInteger(units)) refuse('out-of-range');
  if (!Number.isSafeInteger(units)) throw new ApiError(400, 'AMOUNT_OUT_OF_RANGE', `${amount} is out of range.`, { min: operationLimitsCents.min * perCent, max: operationLimitsCents.max * perCent });
  if (units % perCent !== 0) {
    refuse('not-whole-cents');
    throw new ApiError(400, 'INVALID_AMOUNT', `The amount must convert exactly to whole cents: a multiple of ${perCent} at ${STABLECOIN_DECIMALS} decimals.`, { multipleOf: perCent });
  }
  const cents = units / perCent;
  if (cents < operationLimitsCents.min || cents > operationLimitsCents.max) {
    refuse('out-of-range');
    throw new ApiError(400, 'AMOUNT_OUT_OF_RANGE', `The amount must be between ${operationLimitsCents.min * perCent} and ${operationLimitsCents.max * perCent}.`, {
      min: String(operationLimitsCents.min * perCent),
      max: String(operationLimitsCents.max * perCent),
    });
  }
  return { units, cents };
}

function enabledCoin(ctx: SandboxContext, platform: Platform, id: string): { coin: StablecoinRow; link: ProviderAccountRow } {
  const coin = findCoin(ctx, platform.id, id);
  if (coin.service_operations_status !== 'ENABLED') {
    throw new ApiError(409, ErrorCode.CONFLICT, `Stablecoin ${id} is ${coin.service_operations_status}: mints and burns need ENABLED.`, {
      serviceOperationsStatus: coin.service_operations_status,
    });
  }
  const link = usable(findAccount(ctx, platform.id, coin.provider_account_id));
  return { coin, link };
}

function internalAccount(ctx: SandboxContext, platformId: string, id: string, currency: string, field: string) {
  const row = internalAccountRepo(ctx).byId(platformId, id);
  if (!row) throw invalidInput(`Internal account ${id} not found.`, [{ field, message: 'An InternalAccount id of this platform.' }]);
  if (row.currency !== currency) {
    throw new ApiError(400, 'INVALID_CURRENCY', `Internal account ${id} holds ${row.currency}; this operation needs ${currency}.`, { field, currency: row.currency });
  }
  return row;
}

function externalAccount(ctx: SandboxContext, platformId: string, id: string, field: string, accept: (accountType: string, currency: string) => boolean, what: string) {
  let account;
  try {
    account = getExternalAccountFor(ctx, platformId, id, 'customer');
  } catch {
    throw invalidInput(`External account ${id} not found.`, [{ field, message: 'An ExternalAccount id of this platform.' }]);
  }
  if (account.status !== 'ACTIVE' || !accept(account.accountInfo.accountType, account.currency)) {
    throw invalidInput(`External account ${id} cannot be used here: ${what}.`, [{ field, message: what }]);
  }
  return account;
}

const isUsdBank = (type: string, currency: string) => currency === STABLECOIN_BASE_CURRENCY && type === 'USD_ACCOUNT';

function baseView(coin: StablecoinRow, link: ProviderAccountRow, id: string, type: 'MINT' | 'BURN', amount: string, now: string): Record<string, unknown> {
  return {
    id,
    stablecoinId: coin.id,
    operationType: type,
    status: 'CREATED',
    amount,
    provider: coin.provider,
    providerEnvironment: coin.provider_environment,
    stablecoinProviderAccountId: link.id,
  };
}

function finishView(view: Record<string, unknown>, description: string | undefined, now: string): Record<string, unknown> {
  if (description !== undefined) view.description = description;
  view.createdAt = now;
  view.updatedAt = now;
  return view;
}

function insertOperation(ctx: SandboxContext, platform: Platform, state: OperationState): Record<string, unknown> {
  const view = state.view;
  repoOf(ctx).insertOperation({
    id: String(view.id),
    platform_id: platform.id,
    stablecoin_id: String(view.stablecoinId),
    operation_type: String(view.operationType),
    status: String(view.status),
    body: JSON.stringify(state),
    created_at: String(view.createdAt),
    updated_at: String(view.updatedAt),
  });
  return view;
}

function depositAddress(coin: StablecoinRow, operationId: string): string {
  return `spark1sandbox${sha256(`${coin.id}:${operationId}`).slice(0, 40)}`;
}

/**
 * `POST /stablecoins/{id}/mints`. WIRE: PENDING_FUNDING with wire instructions until the funds
 * arrive (`POST /_sandbox/stablecoin-operations/{id}/fund`), then PROCESSING and COMPLETED on
 * the clock; ACH debits and provider balance: PENDING_PROVIDER, COMPLETED on the clock; a
 * Service internal account: its funds are held at once and move into the reserve at completion.
 * At completion the reserve gains the fiat and the destination the tokens, in one posting each.
 */
export function createMint(ctx: SandboxContext, platform: Platform, stablecoinId: string, request: StablecoinMintRequest): Record<string, unknown> {
  return ctx.tx(() => {
    const { coin, link } = enabledCoin(ctx, platform, stablecoinId);
    const { units, cents } = checkAmount(ctx, platform.id, request.amount);
    const destinationId = request.destination.accountId;
    let tokenTo: string;
    if (destinationId.startsWith('InternalAccount:')) {
      tokenTo = internalAccount(ctx, platform.id, destinationId, coin.symbol, 'destination.accountId').id;
    } else {
      externalAccount(ctx, platform.id, destinationId, 'destination.accountId', (type) => type === 'SPARK_WALLET', 'an active Spark wallet (SPARK_WALLET)');
      tokenTo = circulatingAccount(coin.id);
    }
    const source = request.fundingSource;
    let fiatFrom = worldAccount(STABLECOIN_BASE_CURRENCY);
    let fiatHeldFrom: string | undefined;
    if (source.type === 'ACH_DEBIT' || source.type === 'SAME_DAY_ACH_DEBIT') {
      externalAccount(ctx, platform.id, source.externalAccountId, 'fundingSource.externalAccountId', isUsdBank, 'an active USD bank account (USD_ACCOUNT)');
    } else if (source.type === 'SERVICE_INTERNAL_ACCOUNT') {
      fiatHeldFrom = internalAccount(ctx, platform.id, source.accountId, STABLECOIN_BASE_CURRENCY, 'fundingSource.accountId').id;
      fiatFrom = bucketOf(fiatHeldFrom, 'held');
    }
    if (providerUnavailable(cents)) recordRule(ctx, platform.id, amountRuleIds.id('503'));
    if (providerUnavailable(cents)) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The stablecoin provider is temporarily unavailable; retry later.');
    const now = ctx.clock.iso();
    const id = ctx.ids.next('StablecoinOperation');
    const view = baseView(coin, link, id, 'MINT', request.amount, now);
    view.source = { ...source };
    if (source.type === 'WIRE') {
      view.status = 'PENDING_FUNDING';
      view.fundingInstructions = {
        rail: 'WIRE',
        amount: String(cents),
        currency: STABLECOIN_BASE_CURRENCY,
        bankName: 'Sandbox Provider Bank',
        accountNumber: `9${sha256(id).replace(/[^0-9]/g, '').slice(0, 11).padEnd(11, '0')}`,
        routingNumber: '021000021',
        beneficiaryName: 'Brale Sandbox FBO Issuer',
        reference: id.slice(id.indexOf(':') + 1, id.indexOf(':') + 13),
      };
      view.expiresAt = new Date(ctx.clock.now() + FUNDING_WINDOW_SECONDS * 1000).toISOString();
      view.providerStatus = 'awaiting_funds';
      ctx.scheduler.schedule(platform.id, EXPIRE_OPERATION_JOB, FUNDING_WINDOW_SECONDS * 1000, { operationId: id });
    } else {
      if (fiatHeldFrom !== undefined) move(ctx, platform.id, id, fiatHeldFrom, fiatFrom, STABLECOIN_BASE_CURRENCY, cents);
      view.status = 'PENDING_PROVIDER';
      view.providerStatus = 'pending';
    }
    view.destination = { accountId: destinationId };
    finishView(view, request.description, now);
    const state: OperationState = { view, cents, units, fiatFrom, tokenTo, delaySeconds: settlementDelaySeconds[source.type === 'SERVICE_INTERNAL_ACCOUNT' ? 'PROVIDER_INTERNAL_BALANCE' : source.type] ?? 60 };
    if (fiatHeldFrom !== undefined) state.fiatHeldFrom = fiatHeldFrom;
    insertOperation(ctx, platform, state);
    if (view.status === 'PENDING_PROVIDER') ctx.scheduler.schedule(platform.id, COMPLETE_OPERATION_JOB, state.delaySeconds * 1000, { operationId: id });
    return view;
  });
}

/**
 * `POST /stablecoins/{id}/burns`. The tokens to burn are held at once (from circulation, or from
 * a Service internal account); EXTERNAL_ACCOUNT waits in PENDING_FUNDING for the tokens to reach
 * the returned deposit address (`POST /_sandbox/stablecoin-operations/{id}/fund`). At completion
 * the held tokens are destroyed and the reserve pays the fiat out to the bank account.
 */
export function createBurn(ctx: SandboxContext, platform: Platform, stablecoinId: string, request: StablecoinBurnRequest): Record<string, unknown> {
  return ctx.tx(() => {
    const { coin, link } = enabledCoin(ctx, platform, stablecoinId);
    const { units, cents } = checkAmount(ctx, platform.id, request.amount);
    externalAccount(ctx, platform.id, request.destination.externalAccountId, 'destination.externalAccountId', isUsdBank, 'an active USD bank account (USD_ACCOUNT)');
    const source = request.source;
    const tokenHeldFrom =
      source.type === 'SERVICE_INTERNAL_ACCOUNT' ? internalAccount(ctx, platform.id, source.accountId, coin.symbol, 'source.accountId').id : circulatingAccount(coin.id);
    if (providerUnavailable(cents)) recordRule(ctx, platform.id, amountRuleIds.id('503'));
    if (providerUnavailable(cents)) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The stablecoin provider is temporarily unavailable; retry later.');
    const now = ctx.clock.iso();
    const id = ctx.ids.next('StablecoinOperation');
    const tokenHeld = bucketOf(tokenHeldFrom, 'held');
    // Fails with 400 INVALID_AMOUNT (nothing written) when the tokens are not there to burn.
    move(ctx, platform.id, id, tokenHeldFrom, tokenHeld, coin.symbol, units);
    const view = baseView(coin, link, id, 'BURN', request.amount, now);
    view.source = { ...source };
    if (source.type === 'EXTERNAL_ACCOUNT') {
      view.status = 'PENDING_FUNDING';
      view.fundingInstructions = { rail: 'SPARK', network: coin.network, address: depositAddress(coin, id), valueType: coin.provider_token_identifier };
      view.expiresAt = new Date(ctx.clock.now() + FUNDING_WINDOW_SECONDS * 1000).toISOString();
      view.providerStatus = 'awaiting_funds';
      ctx.scheduler.schedule(platform.id, EXPIRE_OPERATION_JOB, FUNDING_WINDOW_SECONDS * 1000, { operationId: id });
    } else {
      view.status = 'PENDING_PROVIDER';
      view.providerStatus = 'pending';
    }
    view.destination = { accountId: request.destination.externalAccountId, rail: request.destination.rail };
    view.estimatedDelivery = { rail: request.destination.rail, amount: String(cents), currency: STABLECOIN_BASE_CURRENCY, timing: payoutTiming[request.destination.rail] };
    finishView(view, request.description, now);
    const state: OperationState = {
      view,
      cents,
      units,
      tokenHeld,
      tokenHeldFrom,
      delaySeconds: settlementDelaySeconds[request.destination.rail] ?? 60,
    };
    insertOperation(ctx, platform, state);
    if (view.status === 'PENDING_PROVIDER') ctx.scheduler.schedule(platform.id, COMPLETE_OPERATION_JOB, state.delaySeconds * 1000, { operationId: id });
    return view;
  });
}

function findOperation(ctx: SandboxContext, platformId: string, id: string): OperationRow {
  const row = repoOf(ctx).operationById(platformId, id);
  if (!row) throw notFound(REFERENCE_NOT_FOUND, `Stablecoin operation ${id} not found.`);
  return row;
}

/** `GET /stablecoin-operations/{id}`. */
export function getOperation(ctx: SandboxContext, platform: Platform, id: string): Record<string, unknown> {
  return stateOf(findOperation(ctx, platform.id, id)).view;
}

/** `GET /stablecoins/{id}/operations`: most recent first. */
export function listOperations(ctx: SandboxContext, platform: Platform, stablecoinId: string, query: OperationsQuery): Page<Record<string, unknown>> {
  findCoin(ctx, platform.id, stablecoinId);
  try {
    decodeCursor(query.cursor);
  } catch {
    // The contract lists no 400 for this operation: a cursor this sandbox did not issue is a reference not found.
    throw notFound(REFERENCE_NOT_FOUND, 'The cursor is not one this sandbox issued: pass the nextCursor of a previous page unchanged.');
  }
  const filters = { operation_type: query.operationType };
  const pages = repoOf(ctx).operationPages;
  return paginate(
    query,
    ({ afterKey, take }) => pages.page<OperationRow>(stablecoinId, filters, afterKey, take),
    () => pages.count(stablecoinId, filters),
    (row) => row.id,
    (row) => stateOf(row).view,
  );
}

function save(ctx: SandboxContext, row: OperationRow, state: OperationState, status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = ctx.clock.iso();
  state.view = { ...state.view, ...extra, status, updatedAt: now };
  repoOf(ctx).updateOperation(row.id, status, JSON.stringify(state), now);
  return state.view;
}

/**
 * Control plane: the external funds of a PENDING_FUNDING operation arrived (the wire for a mint,
 * the tokens at the deposit address for a burn): PROCESSING, COMPLETED after the rail's delay.
 */
export function receiveOperationFunds(ctx: SandboxContext, platform: Platform, id: string): Record<string, unknown> {
  return ctx.tx(() => {
    const row = findOperation(ctx, platform.id, id);
    if (row.status !== 'PENDING_FUNDING') {
      throw new ApiError(409, 'INVALID_STATE_TRANSITION', `Operation ${id} is ${row.status}; only a PENDING_FUNDING operation can receive funds.`);
    }
    const state = stateOf(row);
    const view = save(ctx, row, state, 'PROCESSING', { providerStatus: 'funds_received' });
    ctx.scheduler.schedule(row.platform_id, COMPLETE_OPERATION_JOB, state.delaySeconds * 1000, { operationId: id });
    return view;
  });
}

/** Job: completes an operation, posting its ledger movements. */
export function completeOperation(ctx: SandboxContext, platformId: string, id: string): void {
  ctx.tx(() => {
    const row = repoOf(ctx).operationById(platformId, id);
    if (!row || (row.status !== 'PROCESSING' && row.status !== 'PENDING_PROVIDER')) return;
    const state = stateOf(row);
    const coinId = row.stablecoin_id;
    const coin = repoOf(ctx).coinById(platformId, coinId)!;
    if (row.operation_type === 'MINT') {
      move(ctx, platformId, id, state.fiatFrom!, reserveAccount(coinId), STABLECOIN_BASE_CURRENCY, state.cents);
      move(ctx, platformId, id, worldAccount(coin.symbol), state.tokenTo!, coin.symbol, state.units);
    } else {
      move(ctx, platformId, id, state.tokenHeld!, worldAccount(coin.symbol), coin.symbol, state.units);
      move(ctx, platformId, id, reserveAccount(coinId), worldAccount(STABLECOIN_BASE_CURRENCY), STABLECOIN_BASE_CURRENCY, state.cents);
    }
    save(ctx, row, state, 'COMPLETED', { providerStatus: 'complete' });
  });
}

/** Job: a PENDING_FUNDING operation whose funds never came EXPIRES; held tokens go back. */
export function expireOperation(ctx: SandboxContext, platformId: string, id: string): void {
  ctx.tx(() => {
    const row = repoOf(ctx).operationById(platformId, id);
    if (!row || row.status !== 'PENDING_FUNDING') return;
    const state = stateOf(row);
    const coin = repoOf(ctx).coinById(platformId, row.stablecoin_id)!;
    if (state.tokenHeld && state.tokenHeldFrom) move(ctx, platformId, `${id}:release`, state.tokenHeld, state.tokenHeldFrom, coin.symbol, state.units);
    save(ctx, row, state, 'EXPIRED', { providerStatus: 'expired', failureReason: 'FUNDING_NOT_RECEIVED' });
  });
}

/** Reserve (cents) and circulating supply (units, with held tokens) of a stablecoin, for consistency checks. */
export function stablecoinLedger(ctx: SandboxContext, stablecoinId: string): { reserveCents: number; circulatingUnits: number } {
  const circulating = circulatingAccount(stablecoinId);
  return { reserveCents: ledgerBalance(ctx, reserveAccount(stablecoinId)), circulatingUnits: ledgerBalance(ctx, circulating) + ledgerBalance(ctx, bucketOf(circulating, 'held')) };
}

/** Deletes a platform's links, stablecoins and operations (sandbox reset). */
export function removePlatformStablecoins(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}
