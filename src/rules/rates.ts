/**
 * The sandbox's rate source: deterministic mid-market levels, in US dollars per one unit of
 * each currency, moving by a small deterministic drift every 5 minutes (the contract's cache
 * window) so that "live" rates change without randomness.
 */

/** US dollars per one major unit. USD, USDC and USDB are pegged 1:1. */
export const usdPerUnit: Readonly<Record<string, number>> = {
  USD: 1,
  USDC: 1,
  USDB: 1,
  USDT: 1,
  EUR: 1.085,
  GBP: 1.27,
  MXN: 0.0585,
  BRL: 0.182,
  INR: 0.01195,
  NGN: 0.00065,
  PHP: 0.01745,
  CAD: 0.735,
  COP: 0.000245,
  KES: 0.00775,
  GHS: 0.0645,
  ZAR: 0.0545,
  SGD: 0.745,
  DKK: 0.1455,
  IDR: 0.0000635,
  THB: 0.0281,
  VND: 0.0000395,
  XOF: 0.00165,
  XAF: 0.00165,
  UGX: 0.00027,
  RWF: 0.00074,
  BTC: 97_250,
};

/** Currencies pegged to one another: converted 1:1 with no spread and no drift. */
const pegged = new Set(['USD', 'USDC', 'USDB', 'USDT']);

/** The service's spread on the mid-market rate for a cross-currency conversion. */
export const SPREAD = 0.002;

/** How long a rate is cached, in milliseconds (the contract says about 5 minutes). */
export const RATE_WINDOW_MS = 5 * 60 * 1000;

/** Deterministic drift in [-0.3 %, +0.3 %] for a currency in a 5-minute window. */
function drift(code: string, window: number): number {
  if (pegged.has(code)) return 0;
  let h = 2166136261;
  for (const ch of `${code}:${window}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return ((h % 6001) - 3000) / 1_000_000;
}

/** Whether the sandbox quotes this currency. */
export function hasRate(code: string): boolean {
  return code in usdPerUnit;
}

/**
 * Units of `to` per one unit of `from` at `atMs` (mid-market, no spread), stable within a
 * 5-minute window. Returns undefined for an unknown currency.
 */
export function midRate(from: string, to: string, atMs: number): number | undefined {
  const a = usdPerUnit[from];
  const b = usdPerUnit[to];
  if (a === undefined || b === undefined) return undefined;
  if (pegged.has(from) && pegged.has(to)) return 1;
  const window = Math.floor(atMs / RATE_WINDOW_MS);
  return (a * (1 + drift(from, window))) / (b * (1 + drift(to, window)));
}

/** Whether a conversion between the two needs no spread (same currency or pegged pair). */
export function isPegged(from: string, to: string): boolean {
  return from === to || (pegged.has(from) && pegged.has(to));
}
