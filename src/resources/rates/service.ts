import { ApiError } from '../../core/errors.js';
import { currencyOf, type Currency } from '../../core/money.js';
import type { SandboxContext } from '../../store/context.js';
import { corridors } from '../../rules/rails.js';
import { isPegged, midRate, RATE_WINDOW_MS, SPREAD } from '../../rules/rates.js';
import { SERVICE_VARIABLE_FEE_BPS, serviceFixedFeeByCurrency } from '../../rules/quote-rules.js';
import type { Platform } from '../../tenancy/index.js';

/** Which amount the payer fixed. */
export type LockedSide = 'SENDING' | 'RECEIVING';

/** A platform fee override of a quote request. */
export interface PlatformFeeOverride {
  platformFixedFee: { amount: number; currency: string };
  platformVariableFeeBps: number;
}

/** A priced conversion, every amount an integer in its currency's smallest unit. */
export interface Pricing {
  sendingCurrency: Currency;
  receivingCurrency: Currency;
  /** What leaves the payer: principal plus every fee. */
  totalSendingAmount: number;
  totalReceivingAmount: number;
  /** The part of the sending amount that is converted. */
  principal: number;
  /** Receiving major units per sending major unit, after the spread. */
  exchangeRate: number;
  feesIncluded: number;
  platformFeesIncluded: number;
  serviceFee: number;
  fixedFees: number;
  rateDetails: {
    counterpartyMultiplier: number;
    counterpartyFixedFee: number;
    serviceApiMultiplier: number;
    serviceApiFixedFee: number;
    serviceApiVariableFeeRate: number;
    serviceApiVariableFeeAmount: number;
  };
}

const RATE_SCALE = 1_000_000_000_000n;
const pow10 = (n: number) => 10n ** BigInt(n);
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** The currency's contract shape, or `400 INVALID_CURRENCY`. */
export function currencyInfo(code: string, field = 'currency'): Currency {
  const currency = currencyOf(code);
  if (!currency || midRate(code, code, 0) === undefined) {
    throw new ApiError(400, 'INVALID_CURRENCY', `${code} is not a currency the sandbox can price.`, { field });
  }
  return currency;
}

/** The applied rate (receiving per sending, major units) at `atMs`: mid-market less the spread, except for pegged pairs. */
export function appliedRate(from: string, to: string, atMs: number): number {
  const mid = midRate(from, to, atMs);
  if (mid === undefined) throw new ApiError(400, 'INVALID_CURRENCY', `No rate for ${from} to ${to}.`);
  return isPegged(from, to) ? mid : mid * (1 - SPREAD);
}

/**
 * Prices a conversion. Rounding rule: a converted receiving amount rounds down, a sending
 * amount needed for a receiving amount rounds up, and each variable fee rounds up, so the
 * receiver never gets more than the rate gives and the payer never pays less than the fees.
 * With the SENDING side locked, the locked amount is the total that leaves (fees included);
 * with RECEIVING locked, the receiver gets exactly the locked amount and the fees come on top.
 */
export function price(
  ctx: SandboxContext,
  platform: Platform,
  input: { from: string; to: string; side: LockedSide; amount: number; feeOverride?: PlatformFeeOverride | undefined },
): Pricing {
  const sending = currencyInfo(input.from, 'sendingCurrency');
  const receiving = currencyInfo(input.to, 'receivingCurrency');
  const rate = appliedRate(sending.code, receiving.code, ctx.clock.now());
  const rateScaled = BigInt(Math.round(rate * Number(RATE_SCALE)));
  const toReceiving = (principal: bigint) => (principal * rateScaled * pow10(receiving.decimals)) / (pow10(sending.decimals) * RATE_SCALE);
  const toSending = (received: bigint) => ceilDiv(received * pow10(sending.decimals) * RATE_SCALE, rateScaled * pow10(receiving.decimals));

  const serviceFixed = isPegged(sending.code, receiving.code) ? 0 : (serviceFixedFeeByCurrency[sending.code] ?? 0);
  const serviceBps = isPegged(sending.code, receiving.code) ? 0 : SERVICE_VARIABLE_FEE_BPS;
  const platformFee = platformFeeOf(platform, sending.code, input.feeOverride);
  const fixed = BigInt(serviceFixed + platformFee.fixed);
  const bps = BigInt(serviceBps + platformFee.bps);

  let principal: bigint;
  let total: bigint;
  let received: bigint;
  if (input.side === 'SENDING') {
    total = BigInt(input.amount);
    principal = ((total - fixed) * 10_000n) / (10_000n + bps);
    received = principal > 0n ? toReceiving(principal) : 0n;
  } else {
    received = BigInt(input.amount);
    principal = toSending(received);
    total = principal + fixed + ceilDiv(principal * bps, 10_000n);
  }
  if (principal <= 0n || received <= 0n) {
    throw new ApiError(400, 'AMOUNT_OUT_OF_RANGE', `${input.amount} ${input.side === 'SENDING' ? sending.code : receiving.code} does not cover the fees of this payment.`, {
      fixedFees: Number(fixed),
    });
  }
  const fees = total - principal;
  const platformFees = platformFee.fixed === 0 && platformFee.bps === 0 ? 0n : BigInt(platformFee.fixed) + ceilDiv(principal * BigInt(platformFee.bps), 10_000n);
  const serviceFee = fees - platformFees;
  const check = (n: bigint, what: string) => {
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError(400, 'AMOUNT_OUT_OF_RANGE', `The ${what} is too large.`);
    return Number(n);
  };
  return {
    sendingCurrency: sending,
    receivingCurrency: receiving,
    totalSendingAmount: check(total, 'sending amount'),
    totalReceivingAmount: check(received, 'receiving amount'),
    principal: check(principal, 'sending amount'),
    exchangeRate: Number(rate.toPrecision(10)),
    feesIncluded: Number(fees),
    platformFeesIncluded: Number(platformFees),
    serviceFee: Number(serviceFee),
    fixedFees: Number(fixed),
    rateDetails: {
      counterpartyMultiplier: 1,
      counterpartyFixedFee: 0,
      serviceApiMultiplier: Number(rate.toPrecision(10)),
      serviceApiFixedFee: serviceFixed,
      serviceApiVariableFeeRate: serviceBps / 10_000,
      serviceApiVariableFeeAmount: Number(serviceFee) - serviceFixed,
    },
  };
}

/** The platform's fee on a payment from this currency: the override, or the active fee config (USD only today). */
function platformFeeOf(platform: Platform, sendingCode: string, override: PlatformFeeOverride | undefined): { fixed: number; bps: number } {
  if (override) {
    if (override.platformFixedFee.currency !== sendingCode) {
      throw new ApiError(400, 'INVALID_INPUT', `platformFeeOverride.platformFixedFee.currency must be the sending currency ${sendingCode}.`, {
        errors: [{ field: 'platformFeeOverride.platformFixedFee.currency', constraint: { enum: [sendingCode] }, message: `Use ${sendingCode}.` }],
      });
    }
    return { fixed: override.platformFixedFee.amount, bps: override.platformVariableFeeBps };
  }
  const config = platform.config.feeConfigs.find((f) => f.feeType === 'CROSS_CURRENCY_TRANSACTION' && f.sourceCurrency === sendingCode);
  if (!config) return { fixed: 0, bps: 0 };
  return { fixed: config.fixedFee.currency === sendingCode ? config.fixedFee.amount : 0, bps: config.variableFeeBps };
}

/** The first local rail of a currency's corridors, as the contract names rails. */
function railOfCurrency(code: string): string | undefined {
  return corridors.find((corridor) => corridor.currency === code)?.rails[0];
}

/**
 * `GET /exchange-rates`: every corridor between the platform's configured currencies (or the
 * filtered ones) with a payout rail, priced for `sendingAmount`, platform fees included. Rates
 * hold for a 5-minute window; `updatedAt` is that window's start.
 */
export function exchangeRates(
  ctx: SandboxContext,
  platform: Platform,
  query: { sourceCurrency?: string | undefined; destinationCurrency?: string[] | undefined; sendingAmount: number },
): { data: Record<string, unknown>[] } {
  const configured = platform.config.supportedCurrencies;
  const sources = configured.filter((c) => query.sourceCurrency === undefined || c.currencyCode === query.sourceCurrency);
  if (query.sourceCurrency !== undefined && sources.length === 0) currencyInfo(query.sourceCurrency, 'sourceCurrency');
  const destinations = configured
    .map((c) => c.currencyCode)
    .filter((code) => query.destinationCurrency === undefined || query.destinationCurrency.includes(code));
  const updatedAt = new Date(Math.floor(ctx.clock.now() / RATE_WINDOW_MS) * RATE_WINDOW_MS).toISOString();
  const data: Record<string, unknown>[] = [];
  for (const source of sources) {
    for (const destination of destinations) {
      const rail = railOfCurrency(destination);
      if (destination === source.currencyCode || !rail) continue;
      let pricing: Pricing | undefined;
      try {
        pricing = price(ctx, platform, { from: source.currencyCode, to: destination, side: 'SENDING', amount: query.sendingAmount });
      } catch {
        pricing = undefined; // the amount does not cover this corridor's fees: the rate is still shown, with nothing received
      }
      const rate = pricing?.exchangeRate ?? Number(appliedRate(source.currencyCode, destination, ctx.clock.now()).toPrecision(10));
      data.push({
        sourceCurrency: currencyInfo(source.currencyCode),
        destinationCurrency: currencyInfo(destination),
        destinationPaymentRail: rail,
        minSendingAmount: source.minAmount,
        maxSendingAmount: source.maxAmount,
        sendingAmount: query.sendingAmount,
        receivingAmount: pricing?.totalReceivingAmount ?? 0,
        exchangeRate: rate,
        fees: { fixed: pricing?.fixedFees ?? 0, total: pricing?.feesIncluded ?? query.sendingAmount },
        updatedAt,
      });
    }
  }
  return { data };
}
