import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { CliError, clientOptions, originOf, withClientOptions, type ClientOptions } from './client.js';

/** Sends a raw body to the control plane and returns the parsed answer; errors become one CliError line. */
async function send(options: ClientOptions, method: string, path: string, body?: string): Promise<Record<string, unknown>> {
  const origin = originOf(options.url);
  let response: Response;
  try {
    response = await fetch(`${origin}${path}`, {
      method,
      headers: {
        Authorization: `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body,
    });
  } catch {
    throw new CliError(`no sandbox is answering at ${origin}; start one with \`npx service-sandbox\` or pass --url`);
  }
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    json = { message: text };
  }
  if (!response.ok) {
    const hint = response.status === 401 ? ' (check --client-id/--client-secret or SERVICE_SANDBOX_CLIENT_ID/SECRET)' : '';
    throw new CliError(`${String(json.message ?? `${response.status} ${text}`)}${hint}`);
  }
  return json;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

/** Reads a fixture file (JSON, or YAML by its extension) into the JSON text the control plane takes. */
export async function fixtureJson(file: string): Promise<string> {
  const text = readText(file);
  if (!/\.ya?ml$/i.test(file)) return text;
  const { parseFixtureText } = await import('../core/fixture-text.js');
  try {
    return JSON.stringify(parseFixtureText(basename(file), text));
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/** `load <file>`, `export <file>` and `import <file>`, against a running sandbox. */
export function registerStateCommands(program: Command): void {
  withClientOptions(
    program
      .command('load <file>')
      .description('apply a fixture file (JSON or YAML) to a running sandbox: all of it, or nothing if an entry fails'),
  ).action(async (file: string, opts: Record<string, unknown>) => {
    const body = await send(clientOptions(opts), 'POST', `/_sandbox/fixtures?file=${encodeURIComponent(basename(file))}`, await fixtureJson(file));
    process.stdout.write(
      `loaded ${file}: ${String(body.platforms)} platform(s), ${String(body.customers)} customer(s), ${String(body.externalAccounts)} external account(s), ` +
        `${String(body.fundings)} funding(s), ${String(body.quotes)} quote(s), ${String(body.requests)} other request(s)\n`,
    );
  });

  withClientOptions(
    program.command('export <file>').description("save the platform's whole state (clock offset and pending jobs included) to a snapshot file"),
  ).action(async (file: string, opts: Record<string, unknown>) => {
    const options = clientOptions(opts);
    const origin = originOf(options.url);
    let response: Response;
    try {
      response = await fetch(`${origin}/_sandbox/snapshot`, {
        headers: { Authorization: `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}` },
      });
    } catch {
      throw new CliError(`no sandbox is answering at ${origin}; start one with \`npx service-sandbox\` or pass --url`);
    }
    const text = await response.text();
    if (!response.ok) throw new CliError(`${response.status} ${text}`);
    try {
      writeFileSync(file, text);
    } catch (error) {
      throw new CliError(`cannot write ${file}: ${(error as Error).message}`);
    }
    const snapshot = JSON.parse(text) as { tables: Record<string, { rows: unknown[] }>; clock: { now: string } };
    const rows = Object.values(snapshot.tables).reduce((sum, table) => sum + table.rows.length, 0);
    process.stdout.write(`exported ${rows} rows of ${Object.keys(snapshot.tables).length} tables at sandbox time ${snapshot.clock.now} to ${file}\n`);
  });

  withClientOptions(
    program.command('import <file>').description("replace the platform's state with a snapshot file's (made by `export`)"),
  ).action(async (file: string, opts: Record<string, unknown>) => {
    const body = await send(clientOptions(opts), 'POST', '/_sandbox/snapshot', readText(file));
    const tables = body.tables as Record<string, number>;
    const rows = Object.values(tables).reduce((sum, n) => sum + n, 0);
    process.stdout.write(`imported ${rows} rows from ${file}; sandbox clock ${String(body.now)}\n`);
  });
}
