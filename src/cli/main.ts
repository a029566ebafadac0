import { Command, CommanderError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { call, CliError, clientOptions, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, parseDuration, withClientOptions } from './client.js';
import { registerAccountCommands } from './accounts.js';
import { registerCustomerCommands } from './customers.js';
import { registerWebhooksCommands } from './webhooks.js';
import { registerStablecoinCommands } from './stablecoins.js';


const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new CliError(`--port ${value} is not a port number (0-65535; 0 picks a free port)`);
  return port;
}

/** Builds the commander program. */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name('service-sandbox')
    .description('A local, stateful emulator of the Service payments API.')
    .version(version, '-v, --version')
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: (text, write) => write(text) });

  program
    .command('start', { isDefault: true })
    .description('start the sandbox (the default command)')
    .addOption(new Option('--port <n>', 'port to listen on; 0 picks a free one').default('8080'))
    .addOption(new Option('--host <host>', 'interface to bind').default('127.0.0.1'))
    .addOption(new Option('--db <file>', 'database file').default('.service-sandbox/sandbox.db'))
    .addOption(new Option('--memory', 'keep everything in memory; nothing is written to disk'))
    .addOption(new Option('--client-id <id>', 'client id of the default platform').env('SERVICE_SANDBOX_CLIENT_ID').default(DEFAULT_CLIENT_ID))
    .addOption(
      new Option('--client-secret <secret>', 'client secret of the default platform')
        .env('SERVICE_SANDBOX_CLIENT_SECRET')
        .default(DEFAULT_CLIENT_SECRET, 'sandbox-client-secret'),
    )
    .addOption(new Option('--webhook-url <url>', 'webhook endpoint of the default platform'))
    .addOption(new Option('--log-format <format>', 'request log format').choices(['pretty', 'json']).default('pretty'))
    .addOption(new Option('--quiet', 'no request log'))
    .action(async (opts: Record<string, unknown>) => {
      const { runStart } = await import('./start.js');
      await runStart({
        port: parsePort(String(opts.port)),
        host: String(opts.host),
        db: opts.memory ? ':memory:' : resolve(String(opts.db)),
        clientId: String(opts.clientId),
        clientSecret: String(opts.clientSecret),
        secretIsDefault: opts.clientSecret === DEFAULT_CLIENT_SECRET,
        webhookUrl: opts.webhookUrl === undefined ? undefined : String(opts.webhookUrl),
        logFormat: opts.logFormat === 'json' ? 'json' : 'pretty',
        quiet: Boolean(opts.quiet),
      });
    });

  const clock = program.command('clock').description('read or move the sandbox clock of a running sandbox');
  withClientOptions(clock.command('show', { isDefault: true }).description('print the sandbox time')).action(async (opts) => {
    const body = (await call(clientOptions(opts), 'GET', '/_sandbox/clock')) as { now: string; offsetSeconds: number; pendingJobs: number };
    process.stdout.write(`${body.now}  (${body.offsetSeconds}s ahead of real time, ${body.pendingJobs} pending jobs)\n`);
  });
  withClientOptions(
    clock
      .command('advance <duration>')
      .description('move the clock forward (e.g. 30s, 6m, 2h) and run every job that falls due'),
  ).action(async (duration: string, opts) => {
    const seconds = parseDuration(duration);
    if (seconds <= 0) throw new CliError('the duration must be more than zero');
    const body = (await call(clientOptions(opts), 'POST', '/_sandbox/clock/advance', { seconds })) as { now: string };
    process.stdout.write(`sandbox clock is now ${body.now}\n`);
  });

  withClientOptions(program.command('reset').description("wipe the platform's data in a running sandbox")).action(async (opts) => {
    const options = clientOptions(opts);
    await call(options, 'POST', '/_sandbox/reset');
    process.stdout.write(`reset: every customer, account, transaction and event of ${options.clientId} is gone\n`);
  });

  registerAccountCommands(program);
  registerCustomerCommands(program);
  registerWebhooksCommands(program);
  registerStablecoinCommands(program);

  return program;
}

/** Runs the CLI; errors become one line on stderr and a non-zero exit, never a stack trace. */
export async function main(argv: string[]): Promise<void> {
  // `service-sandbox ... | head` closes the pipe early: stop quietly, as other CLIs do.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const program = buildProgram();
  program.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`service-sandbox: ${message}\n`);
    process.exitCode = 1;
  }
}
