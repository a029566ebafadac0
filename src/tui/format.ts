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

/** A money amount `{amount, currency: {code, decimals}}` in the currency's units: `1,234.56 USD`. */
export function formatMoney(value: { amount: number; currency: { code: string; decimals?: number } } | undefined): string {
  if (!value) return '';
  const decimals = value.currency.decimals ?? 2;
  const negative = value.amount < 0;
  const digits = String(Math.abs(value.amount)).padStart(decimals + 1, '0');
  const whole = decimals === 0 ? digits : digits.slice(0, -decimals);
  const fraction = decimals === 0 ? '' : `.${digits.slice(-decimals)}`;
  return `${negative ? '-' : ''}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction} ${value.currency.code}`;
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
