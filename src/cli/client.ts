import { Option, type Command } from 'commander';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_URL, SandboxClient, SandboxHttpError, SandboxUnreachableError } from '../client/index.js';

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

/** Turns a client failure into one readable CliError. */
export function cliErrorOf(error: unknown, options: ClientOptions): unknown {
  if (error instanceof SandboxUnreachableError) return new CliError(`no sandbox is answering at ${originOf(options.url)}; start one with \`npx service-sandbox\` or pass --url`);
  if (error instanceof SandboxHttpError) {
    const hint = error.status === 401 ? ' (check --client-id/--client-secret or SERVICE_SANDBOX_CLIENT_ID/SECRET)' : '';
    return new CliError(`${error.message}${hint}`);
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

