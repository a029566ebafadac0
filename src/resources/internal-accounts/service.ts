import { BoundedCache, deepFreeze } from '../../core/bounded-cache.js';
import { perContext } from '../../core/per-context.js';
import { createHash } from 'node:crypto';
import type { SandboxContext } from '../../store/context.js';
import { currencyOf, type Currency } from '../../core/money.js';
import { paginate, type Page } from '../../core/pagination.js';
import { accountBalances } from '../ledger/index.js';
import type { Platform } from '../../tenancy/index.js';
import { accountTypeOf, InternalAccountRepo, type InternalAccountFilter, type InternalAccountRow, type InternalAccountType } from './repo.js';


/** What provisioning needs to know of a customer. */
export interface AccountHolder {
  id: string;
  /** The customer's own `currencies`; the platform's configured currencies when absent or empty. */
  currencies?: readonly string[] | undefined;
}

/** Balances of one account in the currency's smallest unit. */
export interface AccountBalances {
  /** Spendable now (`balance`). */
  available: number;
  /** Including amounts held for pending movements (`totalBalance`). */
  total: number;
}

/** The internal-account repo of a context (statements prepared once). */
export const internalAccountRepo = perContext((ctx: SandboxContext) => new InternalAccountRepo(ctx.db, ctx.counts));

/** The balances of an internal account, as the ledger has them (available; total with held and incoming funds). */
export function balancesOf(ctx: SandboxContext, accountId: string): AccountBalances {
  return accountBalances(ctx, accountId);
}

export { accountTypeOf, type InternalAccountType };

const fallbackCurrency = (code: string): Currency => ({ code, name: code, symbol: '', decimals: 2 });

/**
 * An account's funding instructions, derived once and kept (frozen) for the latest 1,024
 * accounts: every balance change presents its account in an `INTERNAL_ACCOUNT.BALANCE_UPDATED`
 * event (issue 26).
 */
const instructions = new BoundedCache<Record<string, unknown>[]>(1024);
function instructionsOf(row: InternalAccountRow): Record<string, unknown>[] {
  const platformOwned = row.customer_id === null;
  return instructions.get(`${row.id}|${row.currency}|${platformOwned ? 1 : 0}`, () => deepFreeze(fundingInstructions(row.id, row.currency, platformOwned)));
}

/** The contract's `InternalAccount` for a stored row, balances read through `balancesOf`. */
export function presentInternalAccount(ctx: SandboxContext, row: InternalAccountRow): Record<string, unknown> {
  const currency = currencyOf(row.currency) ?? fallbackCurrency(row.currency);
  const balances = balancesOf(ctx, row.id);
  const out: Record<string, unknown> = { id: row.id };
  if (row.customer_id !== null) out.customerId = row.customer_id;
  out.type = row.type;
  out.status = row.status;
  out.balance = { amount: balances.available, currency };
  out.totalBalance = { amount: balances.total, currency };
  // Derived from the account, not stored: the same deterministic instructions every time.
  out.fundingPaymentInstructions = instructionsOf(row);
  out.createdAt = row.created_at;
  out.updatedAt = row.updated_at;
  return out;
}

/**
 * Creates an owner's missing accounts, one per wanted currency, in one statement; existing ones
 * are kept (`isNew`: the owner was made in this transaction and has none, so none are read).
 * `ownerId` null is the platform itself. Returns every account of the owner afterwards.
 */
function provision(ctx: SandboxContext, platform: Platform, ownerId: string | null, wanted: Iterable<string>, isNew = false): InternalAccountRow[] {
  const repo = internalAccountRepo(ctx);
  const existing = isNew ? [] : repo.byOwner(platform.id, ownerId);
  const have = new Set(existing.map((row) => row.currency));
  const now = ctx.clock.iso();
  const added: InternalAccountRow[] = [];
  for (const currency of new Set(wanted)) {
    if (have.has(currency)) continue;
    added.push({
      id: ctx.ids.next('InternalAccount'),
      platform_id: platform.id,
      customer_id: ownerId,
      type: accountTypeOf(currency),
      currency,
      status: 'ACTIVE',
      created_at: now,
      updated_at: now,
    });
  }
  repo.insertMany(added);
  return existing.length === 0 ? added : [...existing, ...added];
}

const configuredCurrencies = (platform: Platform) => platform.config.supportedCurrencies.map((c) => c.currencyCode);

/**
 * Creates the customer's missing internal accounts, one per currency (the customer's
 * `currencies`, or else every currency of the platform's configuration). Idempotent. Call it
 * inside the caller's transaction; `isNew` when the customer was created in it (nothing to read).
 * Returns every account of the customer after provisioning.
 */
export function provisionCustomerAccounts(ctx: SandboxContext, platform: Platform, customer: AccountHolder, isNew = false): InternalAccountRow[] {
  const wanted = customer.currencies && customer.currencies.length > 0 ? customer.currencies : configuredCurrencies(platform);
  return provision(ctx, platform, customer.id, wanted, isNew);
}

/**
 * The platform's own accounts, one per configured currency: created on first use, and again
 * for a currency added to the configuration later. Returns them all.
 */
export function provisionPlatformAccounts(ctx: SandboxContext, platform: Platform): InternalAccountRow[] {
  return ctx.tx(() => provision(ctx, platform, null, configuredCurrencies(platform)));
}

/** Accounts of one customer (none until provisioned). */
export function accountsOfCustomer(ctx: SandboxContext, platformId: string, customerId: string): InternalAccountRow[] {
  return internalAccountRepo(ctx).byOwner(platformId, customerId);
}

/**
 * Closes a customer's accounts (the customer was deleted), each with its
 * `INTERNAL_ACCOUNT.STATUS_UPDATED`. Call it inside the caller's transaction.
 */
export function closeCustomerAccounts(ctx: SandboxContext, platformId: string, customerId: string): void {
  const repo = internalAccountRepo(ctx);
  const open = repo.byOwner(platformId, customerId).filter((row) => row.status !== 'CLOSED');
  repo.closeOwner(platformId, customerId, ctx.clock.iso());
  for (const row of open) {
    const closed = repo.byId(platformId, row.id);
    if (closed) ctx.outbox.append(platformId, 'INTERNAL_ACCOUNT.STATUS_UPDATED', row.id, presentInternalAccount(ctx, closed));
  }
}

/**
 * The contract's internal-account-status webhook on every balance change: one
 * `INTERNAL_ACCOUNT.BALANCE_UPDATED` per internal account a ledger posting changed, in the
 * posting's transaction. (Funding instructions are derived from the account and never change
 * in the sandbox, so `FUNDING_INSTRUCTIONS_UPDATED` has no occasion.)
 */
export function announceBalanceChanges(ctx: SandboxContext, platformId: string, accountIds: readonly string[]): void {
  const repo = internalAccountRepo(ctx);
  for (const id of accountIds) {
    const row = repo.byId(platformId, id);
    if (row) ctx.outbox.append(platformId, 'INTERNAL_ACCOUNT.BALANCE_UPDATED', id, presentInternalAccount(ctx, row));
  }
}

/** A page of internal accounts in the contract's list shape. */
export function listInternalAccounts(
  ctx: SandboxContext,
  filter: InternalAccountFilter,
  query: { limit: number; cursor?: string | undefined },
): Page<Record<string, unknown>> {
  const repo = internalAccountRepo(ctx);
  return paginate(
    query,
    (request) => repo.page(filter, request),
    () => repo.count(filter),
    (row) => row.id,
    (row) => presentInternalAccount(ctx, row),
  );
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/**
 * Deterministic characters derived from an account id (xoshiro128** seeded by one SHA-256 of
 * the id): the same account always shows the same instructions, at one hash per account.
 */
class Draw {
  private readonly s: Uint32Array;

  constructor(seed: string) {
    const hash = createHash('sha256').update(seed).digest();
    this.s = new Uint32Array([hash.readUInt32LE(0), hash.readUInt32LE(4), hash.readUInt32LE(8), hash.readUInt32LE(12) | 1]);
  }

  private next(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
    const t = s[1]! << 9;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result;
  }

  private chars(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i += 1) out += alphabet[this.next() % alphabet.length];
    return out;
  }

  digits(length: number): string {
    return this.chars('0123456789', length);
  }
  hex(length: number): string {
    return this.chars('0123456789abcdef', length);
  }
  base58(length: number): string {
    return this.chars(BASE58, length);
  }
}

const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;

/** An IBAN with a valid ISO 13616 check (mod 97). */
function ibanOf(country: string, bban: string): string {
  const numeric = `${bban}${country}00`.replace(/[A-Z]/g, (ch) => String(ch.charCodeAt(0) - 55));
  let remainder = 0;
  for (const digit of numeric) remainder = (remainder * 10 + Number(digit)) % 97;
  const check = String(98 - remainder).padStart(2, '0');
  return `${country}${check}${bban}`;
}

/**
 * Realistic, deterministic funding payment instructions (the contract's `PaymentInstructions`)
 * for an account: a bank account, CLABE, IBAN, PIX code or wallet address in the currency,
 * with the reference that routes a deposit to this account.
 */
export function fundingInstructions(accountId: string, currency: string, isPlatformAccount: boolean): Record<string, unknown>[] {
  const draw = new Draw(accountId);
  const reference = `SBX-${draw.digits(10)}`;
  const notes = (rail: string) => `Sandbox deposit instructions: send ${currency} over ${rail} and quote the reference ${reference}.`;
  const wrap = (info: Record<string, unknown>, rail: string) => [
    { instructionsNotes: notes(rail), isPlatformAccount, accountOrWalletInfo: info },
  ];
  switch (currency) {
    case 'USD':
      return wrap(
        {
          accountType: 'USD_ACCOUNT',
          accountNumber: draw.digits(12),
          routingNumber: '021000021',
          bankName: 'Sandbox Bank, N.A.',
          bankAccountType: 'CHECKING',
          paymentRails: ['ACH', 'WIRE', 'RTP', 'FEDNOW'],
          reference,
        },
        'ACH, wire, RTP or FedNow',
      );
    case 'EUR':
      return wrap(
        {
          accountType: 'EUR_ACCOUNT',
          iban: ibanOf('DE', `50010517${draw.digits(10)}`),
          swiftCode: 'SBXBDEFFXXX',
          paymentRails: ['SEPA', 'SEPA_INSTANT'],
          reference,
        },
        'SEPA or SEPA Instant',
      );
    case 'GBP':
      return wrap(
        { accountType: 'GBP_ACCOUNT', sortCode: '040004', accountNumber: draw.digits(8), paymentRails: ['FASTER_PAYMENTS'], reference },
        'Faster Payments',
      );
    case 'MXN':
      return wrap({ accountType: 'MXN_ACCOUNT', clabeNumber: `646180${draw.digits(12)}`, paymentRails: ['SPEI'], reference }, 'SPEI');
    case 'BRL':
      return wrap(
        { accountType: 'BRL_ACCOUNT', qrCode: `00020126580014br.gov.bcb.pix0136${draw.hex(36)}5204000053039865802BR6304${draw.hex(4).toUpperCase()}` },
        'PIX',
      );
    case 'INR':
      return wrap(
        { accountType: 'INR_ACCOUNT', vpa: `sbx${draw.digits(10)}@sandbox`, accountNumber: draw.digits(14), ifsc: 'SBXB0000001', paymentRails: ['UPI', 'NEFT', 'RTGS'] },
        'UPI, NEFT or RTGS',
      );
    case 'NGN':
      return wrap({ accountType: 'NGN_ACCOUNT', accountNumber: draw.digits(10), bankName: 'Sandbox Bank Nigeria', paymentRails: ['BANK_TRANSFER'], reference }, 'bank transfer');
    case 'PHP':
      return wrap({ accountType: 'PHP_ACCOUNT', bankName: 'Sandbox Bank Philippines', accountNumber: draw.digits(12), paymentRails: ['BANK_TRANSFER'], reference }, 'bank transfer');
    case 'USDC':
      return [
        { instructionsNotes: notes('Solana'), isPlatformAccount, accountOrWalletInfo: { accountType: 'SOLANA_WALLET', address: draw.base58(44), assetType: 'USDC' } },
        { instructionsNotes: notes('Base'), isPlatformAccount, accountOrWalletInfo: { accountType: 'BASE_WALLET', address: `0x${draw.hex(40)}`, assetType: 'USDC' } },
      ];
    case 'BTC':
      return [
        { instructionsNotes: notes('Lightning (Spark)'), isPlatformAccount, accountOrWalletInfo: { accountType: 'SPARK_WALLET', address: `sp1${draw.hex(58)}`, assetType: 'BTC' } },
        { instructionsNotes: notes('Bitcoin L1'), isPlatformAccount, accountOrWalletInfo: { accountType: 'BITCOIN_L1', address: `bc1q${draw.hex(38)}`, network: 'BITCOIN' } },
      ];
    case 'USDB':
      return wrap({ accountType: 'SPARK_WALLET', address: `sp1${draw.hex(58)}`, assetType: 'USDB' }, 'Spark');
    default:
      return [];
  }
}

export type { InternalAccountFilter, InternalAccountRow };
