import { Option, type Command } from 'commander';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_URL, SandboxClient, SandboxHttpError, SandboxUnreachableError, formatMoney } from '../client/index.js';

/** A small HTTP client for CLI commands that act on a running sandbox. */
export interface ClientOptions {
  url: string;
  clientId: string;
  clientSecret: string;
}

/** A failure the CLI reports as one line on stderr, exiting non-zero (1 unless told). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** The origin of a sandbox URL (`http://127.0.0.1:8080/2025-10-13` -> `http://127.0.0.1:8080`). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    throw new CliError(`--url ${url} is not a URL; pass something like http://127.0.0.1:8080`);
  }
}

/** A client of the running sandbox the options name (the CLI's requests are marked by their user agent). */
export function clientOf(options: ClientOptions): SandboxClient {
  return new SandboxClient({ origin: originOf(options.url), clientId: options.clientId, clientSecret: options.clientSecret, userAgent: CLI_USER_AGENT });
}

/** The 401 codes of an embedded wallet's signature (API.md "Embedded wallet signing"), not of the platform's credentials. */
const WALLET_SIGNATURE_CODES = new Set(['WALLET_SIGNATURE_MISSING', 'WALLET_SIGNATURE_MALFORMED', 'WALLET_SIGNATURE_INVALID', 'WALLET_SIGNATURE_BODY_MISMATCH', 'REQUEST_ID_MISSING']);

/** Whether a 401 is about a wallet signature (a session key), rather than the client id and secret. */
function isWalletSignatureError(error: SandboxHttpError): boolean {
  if (error.code !== undefined && WALLET_SIGNATURE_CODES.has(error.code)) return true;
  const reason = (error.body as { details?: { reason?: unknown } } | undefined)?.details?.reason;
  return typeof reason === 'string' && /stamp|session|signature/i.test(reason);
}

/** `12345` of `USD` as `123.45 USD` (the unit the CLI's amounts are given in). */
const major = (amount: unknown, currency: string) => (typeof amount === 'number' && Number.isSafeInteger(amount) ? formatMoney({ amount, currency: { code: currency } }) : `${String(amount)} ${currency}`);

/**
 * The sandbox speaks in the smallest unit (the contract's); the CLI takes and shows major units.
 * Rewrites the messages that carry amounts (insufficient funds, a currency's limits, fees) in them.
 */
function inMajorUnits(error: SandboxHttpError): string {
  const body = error.body as { details?: Record<string, unknown> } | undefined;
  const details = body?.details ?? {};
  const head = `${error.status} ${error.code ?? ''}`.trim();
  if (details.reason === 'INSUFFICIENT_FUNDS' && typeof details.currency === 'string') {
    const currency = details.currency;
    return (
      `${head} Insufficient balance in ${String(details.accountId)}: ${major(details.available, currency)} available, ${major(details.requested, currency)} requested; ` +
      `add funds with \`service-sandbox fund ${String(details.accountId)} <amount> ${currency}\``
    );
  }
  const limit = /^(\d+) is (below|above) the ([A-Z0-9]+) (minimum|single-transaction maximum) of (\d+)\.$/.exec(String((error.body as { message?: unknown } | undefined)?.message ?? ''));
  if (limit) return `${head} ${major(Number(limit[1]), limit[3]!)} is ${limit[2]} the ${limit[4]} of ${major(Number(limit[5]), limit[3]!)}.`;
  const fees = /^(\d+) ([A-Z0-9]+) does not cover the fees of this payment\.$/.exec(String((error.body as { message?: unknown } | undefined)?.message ?? ''));
  if (fees) return `${head} ${major(Number(fees[1]), fees[2]!)} does not cover the fees of this payment${typeof details.fixedFees === 'number' ? ` (${major(details.fixedFees, fees[2]!)} fixed)` : ''}.`;
  return error.message;
}

/** Turns a client failure into one readable CliError. */
export function cliErrorOf(error: unknown, options: ClientOptions): unknown {
  if (error instanceof SandboxUnreachableError) return new CliError(`no sandbox is answering at ${originOf(options.url)}; start one with \`npx service-sandbox\` or pass --url`);
  if (error instanceof SandboxHttpError) {
    let hint = '';
    if (error.status === 401) {
      hint = isWalletSignatureError(error)
        ? ' (a payout from an embedded wallet is signed with a wallet session: run `service-sandbox wallet login <walletAccountId>` and execute again, or pass --key-file <file>; a session lasts 15 minutes of sandbox time)'
        : ' (check --client-id/--client-secret or SERVICE_SANDBOX_CLIENT_ID/SECRET)';
    }
    return new CliError(`${inMajorUnits(error)}${hint}`);
  }
  if (error instanceof RangeError) return new CliError(error.message);
  return error;
}

/** Runs a client call, turning its failures into CliErrors. */
export async function using<T>(options: ClientOptions, work: (client: SandboxClient) => Promise<T>): Promise<T> {
  try {
    return await work(clientOf(options));
  } catch (error) {
    throw cliErrorOf(error, options);
  }
}

/** Calls the sandbox and returns its JSON; errors become one readable CliError. */
export async function call(options: ClientOptions, method: string, path: string, body?: unknown): Promise<unknown> {
  return using(options, (client) => client.request(method, path, body));
}

/** Parses a duration such as `90`, `30s`, `6m`, `2h`, `1d` or `1h30m` into seconds. */
export function parseDuration(text: string): number {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)([smhd])/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    throw new CliError(`"${text}" is not a duration; use seconds or a form like 30s, 6m, 2h, 1h30m`);
  }
  return parts.reduce((total, p) => total + Number(p[1]) * units[p[2]!]!, 0);
}

/** Whole durations for people: `7m30s`, `2h`, `1d3h`, `0s` (rounded to the second). */
export function formatDuration(seconds: number): string {
  let left = Math.round(Math.abs(seconds));
  if (left === 0) return '0s';
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (left >= size) {
      parts.push(`${Math.floor(left / size)}${unit}`);
      left %= size;
    }
  }
  return `${seconds < 0 ? '-' : ''}${parts.join('')}`;
}

/** The CLI's requests carry this user agent; the request log marks them. */
export const CLI_USER_AGENT = 'service-sandbox-cli';

/** Defaults shared by every command (and the programmatic helpers). */
export { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_URL };

/** Options every command that talks to a running sandbox shares. */
export function withClientOptions(command: Command): Command {
  return command
    .addOption(new Option('--url <url>', 'address of the running sandbox').env('SERVICE_SANDBOX_URL').default(DEFAULT_URL))
    .addOption(new Option('--client-id <id>', 'platform client id').env('SERVICE_SANDBOX_CLIENT_ID').default(DEFAULT_CLIENT_ID))
    .addOption(
      new Option('--client-secret <secret>', 'platform client secret').env('SERVICE_SANDBOX_CLIENT_SECRET').default(DEFAULT_CLIENT_SECRET, 'the default secret'),
    );
}

export function clientOptions(opts: Record<string, unknown>): ClientOptions {
  return { url: String(opts.url), clientId: String(opts.clientId), clientSecret: String(opts.clientSecret) };
}

