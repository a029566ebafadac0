import { Option, type Command } from 'commander';

/** A small HTTP client for CLI commands that act on a running sandbox. */
export interface ClientOptions {
  url: string;
  clientId: string;
  clientSecret: string;
}

/** A failure the CLI reports as one line on stderr, exiting non-zero. */
export class CliError extends Error {}

/** The origin of a sandbox URL (`http://127.0.0.1:8080/2025-10-13` -> `http://127.0.0.1:8080`). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    throw new CliError(`--url ${url} is not a URL; pass something like http://127.0.0.1:8080`);
  }
}

/** Calls the sandbox and returns its JSON; errors become one readable CliError. */
export async function call(options: ClientOptions, method: string, path: string, body?: unknown): Promise<unknown> {
  const origin = originOf(options.url);
  const headers: Record<string, string> = {
    Authorization: `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`,
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new CliError(`no sandbox is answering at ${origin}; start one with \`npx service-sandbox\` or pass --url`);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  if (!response.ok) {
    const error = json as { code?: string; message?: string } | undefined;
    const hint = response.status === 401 ? ' (check --client-id/--client-secret or SERVICE_SANDBOX_CLIENT_ID/SECRET)' : '';
    throw new CliError(`${response.status} ${error?.code ?? ''} ${error?.message ?? text}${hint}`.replace(/\s+/g, ' ').trim());
  }
  return json;
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

/** Defaults shared by every command. */
export const DEFAULT_CLIENT_ID = 'sandbox-client-id';
export const DEFAULT_CLIENT_SECRET = 'sandbox-client-secret';
export const DEFAULT_URL = 'http://127.0.0.1:8080';

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

