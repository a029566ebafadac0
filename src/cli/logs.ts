import chalk from 'chalk';
import { Option, type Command } from 'commander';
import { CliError, clientOf, clientOptions, originOf, withClientOptions, type ClientOptions } from './client.js';
import { withExamples } from './help.js';
import { follow } from './webhooks.js';

/** One request as `GET /_sandbox/logs` answers it (src/control/request-log.ts). */
interface Entry {
  time: string;
  sandboxTime: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  errorCode?: string;
  errorField?: string;
}

const out = (line: string) => process.stdout.write(`${line}\n`);

const colorStatus = (status: number) => (status >= 500 ? chalk.red(status) : status >= 400 ? chalk.yellow(status) : chalk.green(status));

/** A line as the sandbox's own request log prints it, with the sandbox time beside real time. */
function line(e: Entry): string {
  const error = e.errorCode ? ` ${chalk.yellow(e.errorCode)}${e.errorField ? ` ${chalk.dim('at')} ${e.errorField}` : ''}` : '';
  return `${chalk.dim(e.time.slice(11, 23))} ${e.method.padEnd(6)} ${e.path} ${colorStatus(e.status)}${error} ${chalk.dim(`${e.durationMs.toFixed(1)}ms ${e.requestId}`)}`;
}

/** The query of the filters, checked by the sandbox (a bad one is its 400, said in one line). */
function queryOf(opts: Record<string, unknown>, extra: Record<string, string>): string {
  const params = new URLSearchParams();
  for (const name of ['status', 'path', 'method'] as const) if (typeof opts[name] === 'string') params.set(name, opts[name] as string);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

async function printRecent(options: ClientOptions, opts: Record<string, unknown>, json: boolean): Promise<void> {
  const origin = originOf(options.url);
  let response: Response;
  try {
    response = await fetch(`${origin}/_sandbox/logs${queryOf(opts, { limit: String(opts.limit) })}`, { headers: clientOf(options).headers() });
  } catch {
    throw new CliError(`no sandbox is answering at ${origin}; start one with \`npx service-sandbox\` or pass --url`);
  }
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = String((JSON.parse(text) as { message?: string }).message ?? text);
    } catch {
      // not JSON: the text as it is
    }
    throw new CliError(`${response.status} ${message}${response.status === 401 ? ' (check --client-id/--client-secret)' : ''}`);
  }
  const entries = (JSON.parse(text) as { data: Entry[] }).data;
  if (json) {
    for (const entry of entries) out(JSON.stringify(entry));
    return;
  }
  if (entries.length === 0) out(chalk.dim(`no request of ${options.clientId} matches yet (the log keeps the latest 1000 per platform, in memory)`));
  for (const entry of entries) out(line(entry));
}

/** `service-sandbox logs`: a running sandbox's request log of the platform, filtered; `--follow` streams it. */
export function registerLogsCommand(program: Command): void {
  const command = withClientOptions(
    program
      .command('logs')
      .description("the platform's recent requests in a running sandbox (method, path, status, duration, request id, error code); --follow streams new ones")
      .option('-f, --follow', 'keep printing requests as they are answered (Ctrl-C to stop)')
      .option('--status <statuses>', 'only these statuses: a class or a code, comma-separated (4xx, 404, 2xx,5xx)')
      .option('--path <prefix>', 'only paths under this one, relative to the API base (/quotes) or under /_sandbox')
      .option('--method <method>', 'only this HTTP method')
      .addOption(new Option('--limit <n>', 'how many of the latest to print (the log keeps 1000 per platform)').default('50'))
      .option('--json', 'one JSON object per line'),
  );
  withExamples(command, [
    'service-sandbox logs',
    'service-sandbox logs --status 4xx --path /quotes',
    'service-sandbox logs --follow --status 4xx,5xx',
    'service-sandbox logs --json | jq -r .requestId',
  ]);
  command.action(async (opts: Record<string, unknown>) => {
    const options = clientOptions(opts);
    const json = Boolean(opts.json);
    if (!/^\d+$/.test(String(opts.limit)) || Number(opts.limit) > 1000) throw new CliError(`--limit ${String(opts.limit)} is not a number from 0 to 1000`, 2);
    if (!opts.follow) return printRecent(options, opts, json);
    let announced = false;
    // Each (re)connection sends the latest --limit first, then every new request.
    let seen = new Set<string>();
    await follow(options, () => `/_sandbox/logs/stream${queryOf(opts, { backlog: String(opts.limit) })}`, json, ({ event, data }) => {
      if (event === 'ready') {
        if (!json && !announced) out(chalk.dim(`following the requests of ${options.clientId} at ${originOf(options.url)} (Ctrl-C to stop)`));
        announced = true;
        return;
      }
      const entry = JSON.parse(data) as Entry;
      // After a reconnect the backlog repeats what was printed already.
      if (seen.has(entry.requestId)) return;
      seen.add(entry.requestId);
      if (seen.size > 5000) seen = new Set([...seen].slice(-1000));
      out(json ? JSON.stringify(entry) : line(entry));
    });
  });
}
