/** Text helpers of the terminal UI: colours that honour NO_COLOR, amounts, cells. */

/** Whether colours are used (https://no-color.org: any NO_COLOR value turns them off). */
export const colorsEnabled = (env: NodeJS.ProcessEnv = process.env): boolean => env.NO_COLOR === undefined || env.NO_COLOR === '';

/** The colour of a status word. */
export function statusColor(status: string | undefined): string | undefined {
  if (!status) return undefined;
  if (/^(APPROVED|COMPLETED|DELIVERED|ACTIVE|ACCEPTED|VERIFIED|SUCCEEDED|PAID)$/.test(status)) return 'green';
  if (/^(REJECTED|FAILED|CLOSED|EXPIRED|CANCELLED|RETURNED|FROZEN|BLOCKED)$/.test(status) || status.endsWith('_FAILED')) return 'red';
  if (/^(NO_ENDPOINT|UNVERIFIED|INACTIVE)$/.test(status)) return 'gray';
  return 'yellow';
}

/** Symbols shown before an amount of these currencies (the code always follows). */
const SYMBOLS: Record<string, string> = { USD: '$', EUR: '€', GBP: '£', JPY: '¥', INR: '₹', NGN: '₦', BRL: 'R$', MXN: 'MX$', CAD: 'CA$', AUD: 'A$', PHP: '₱', KES: 'KSh ' };
/** Decimals of currencies whose amounts may come without them (an amount and a bare code). */
const DECIMALS: Record<string, number> = { BTC: 8, SAT: 0, JPY: 0, USDC: 6, USDT: 6, USDB: 6, ETH: 18 };

/** A money amount: `{amount, currency: {code, decimals}}`. */
export type Money = { amount: number; currency: { code: string; decimals?: number } };

/** Whether a value is a money amount of the contract. */
export const isMoney = (value: unknown): value is Money =>
  typeof value === 'object' && value !== null && typeof (value as Money).amount === 'number' && typeof (value as Money).currency?.code === 'string';

/**
 * A money amount in the currency's units, with its symbol and code: `$1,234.56 USD`,
 * `0.50000000 BTC`. An amount and a bare currency code (`formatMoney(5000, 'USD')`) work too.
 */
export function formatMoney(value: Money | number | undefined, code?: string): string {
  if (value === undefined) return '';
  const money: Money = typeof value === 'number' ? { amount: value, currency: { code: code ?? '', decimals: DECIMALS[code ?? ''] ?? 2 } } : value;
  const decimals = money.currency.decimals ?? DECIMALS[money.currency.code] ?? 2;
  const negative = money.amount < 0;
  const digits = String(Math.abs(money.amount)).padStart(decimals + 1, '0');
  const whole = decimals === 0 ? digits : digits.slice(0, -decimals);
  const fraction = decimals === 0 ? '' : `.${digits.slice(-decimals)}`;
  return `${negative ? '-' : ''}${SYMBOLS[money.currency.code] ?? ''}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction} ${money.currency.code}`.trim();
}

/** The sandbox's time as last read (its clock may be ahead of real time), for relative times. */
let sandboxOffsetMs = 0;
export const setSandboxNow = (iso: string, readAt = Date.now()) => {
  sandboxOffsetMs = Date.parse(iso) - readAt;
};
export const sandboxNow = () => Date.now() + sandboxOffsetMs;

/** `5m ago`, `in 2h`, `3d ago`: how far an instant is from the sandbox's now. */
export function relativeTime(iso: string | null | undefined, now = sandboxNow()): string {
  if (!iso) return '';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return '';
  const seconds = Math.round((now - ms) / 1000);
  const a = Math.abs(seconds);
  const text = a < 5 ? 'now' : a < 60 ? `${a}s` : a < 3600 ? `${Math.floor(a / 60)}m` : a < 86_400 ? `${Math.floor(a / 3600)}h` : a < 86_400 * 60 ? `${Math.floor(a / 86_400)}d` : `${Math.floor(a / (86_400 * 30))}mo`;
  if (text === 'now') return text;
  return seconds >= 0 ? `${text} ago` : `in ${text}`;
}

/** `2026-01-02 03:04:05 (5m ago)` for an ISO instant; any other text as it is. */
export function timeOrText(text: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return text;
  return `${new Date(text).toISOString().slice(0, 19).replace('T', ' ')} (${relativeTime(text)})`;
}

/** A time column: `01-02 03:04 5m ago`. */
export const whenCell = (iso: string | null | undefined): string => (iso ? `${shortTime(iso).slice(0, 11)} ${relativeTime(iso)}` : '');

/** Removes colour and style escapes (NO_COLOR for text made elsewhere, such as request log lines). */
// eslint-disable-next-line no-control-regex
export const stripAnsi = (text: string): string => text.replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '');

/**
 * Column widths sized to their content and the terminal: each column as wide as its widest
 * value (header included) up to its cap; the flexible columns take what is left over; when the
 * terminal is narrower than that, the widest columns give way first, so no column is cut to
 * nothing while another keeps room it does not need.
 */
export function fitColumns(natural: readonly number[], flexible: readonly boolean[], width: number): number[] {
  const room = Math.max(natural.length * 3, width - 2 - (natural.length - 1));
  const widths = natural.map((w) => Math.max(3, w));
  let used = widths.reduce((sum, w) => sum + w, 0);
  if (used < room) {
    const flex = flexible.map((f, i) => (f ? i : -1)).filter((i) => i >= 0);
    const targets = flex.length ? flex : [widths.length - 1];
    const extra = room - used;
    targets.forEach((i, k) => (widths[i]! += Math.floor(extra / targets.length) + (k < extra % targets.length ? 1 : 0)));
    return widths;
  }
  while (used > room) {
    let widest = 0;
    for (let i = 1; i < widths.length; i += 1) if (widths[i]! > widths[widest]!) widest = i;
    if (widths[widest]! <= 3) break;
    const second = Math.max(3, ...widths.filter((_, i) => i !== widest));
    const cut = Math.max(1, Math.min(used - room, widths[widest]! - second));
    widths[widest] = Math.max(3, widths[widest]! - cut);
    used -= cut;
  }
  return widths;
}

/** Parses an amount typed in the currency's units (`100`, `100.5`, `1,000.25`) into the smallest unit. */
export function parseMoney(text: string, decimals: number): number {
  const clean = text.replace(/,/g, '').trim();
  if (!/^\d+(\.\d+)?$/.test(clean)) throw new Error(`"${text}" is not an amount; type it in the currency's units, e.g. 100.00`);
  const [whole, fraction = ''] = clean.split('.');
  if (fraction.length > decimals) throw new Error(`at most ${decimals} decimals`);
  const value = Number(whole) * 10 ** decimals + Number(fraction.padEnd(decimals, '0') || '0');
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error('the amount must be more than zero');
  return value;
}

/** Parses `30s`, `6m`, `2h`, `1h30m`, `1d` or plain seconds. */
export function parseDuration(text: string): number {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)([smhd])/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) throw new Error(`"${text}" is not a duration; use 30s, 6m, 2h or 1h30m`);
  return parts.reduce((total, p) => total + Number(p[1]) * units[p[2]!]!, 0);
}

/** Pads or cuts a cell to exactly `width` characters (an ellipsis marks a cut). */
export function cell(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  if (width <= 0) return '';
  if (text.length > width) return width === 1 ? '…' : `${text.slice(0, width - 1)}…`;
  return align === 'right' ? text.padStart(width) : text.padEnd(width);
}

/** `2026-01-02T03:04:05.678Z` as `01-02 03:04:05`. */
export const shortTime = (iso: string | null | undefined): string => (iso ? `${iso.slice(5, 10)} ${iso.slice(11, 19)}` : '');

/**
 * A resource id shortened for a column: the end of its UUID (the start is the creation time,
 * the same for everything made in one millisecond): `Customer:0191…ab12cd34` -> `…ab12cd34`.
 */
export function shortId(id: string | undefined): string {
  if (!id) return '';
  const bare = id.includes(':') ? id.slice(id.indexOf(':') + 1) : id;
  return bare.length > 9 ? `…${bare.slice(-8)}` : bare;
}
