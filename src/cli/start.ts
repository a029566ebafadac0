import chalk from 'chalk';
import { ListenError, platformWebhookEndpoint, SandboxOptionError, startSandbox, StoreOpenError, webhookPublicKey } from '../index.js';
import { createLogger, silentLogger, type LogFormat } from '../core/logger.js';
import { CliError } from './client.js';
import { linkHolds, runnerChain } from './process-tree.js';
import { loadFixturesAtStart, logPane, runStartUi, startExtras } from './ui.js';

/** Flags of `service-sandbox start`, parsed. */
export interface StartOptions {
  port: number;
  host: string;
  db: string;
  clientId: string;
  clientSecret: string;
  secretIsDefault: boolean;
  webhookUrl: string | undefined;
  logFormat: LogFormat;
  quiet: boolean;
  /** `--seed`: reproducible ids, keys, secrets and tokens. */
  seed: string | undefined;
  /** `--clock-start`: a still clock from this ISO instant. */
  clockStart: string | undefined;
  /** `--import`: a snapshot restored before the ready line. */
  importFile: string | undefined;
  /** `--export-on-exit`: where the default platform's snapshot goes when the sandbox stops. */
  exportOnExit: string | undefined;
}

/** Starts the sandbox, prints the ready line and banner, and shuts down cleanly on SIGINT/SIGTERM. */
export async function runStart(options: StartOptions): Promise<void> {
  const extras = startExtras();
  const pane = extras.ui ? logPane() : undefined;
  const logger = pane ? pane.logger : options.quiet ? silentLogger : createLogger(options.logFormat);
  let sandbox;
  try {
    sandbox = await startSandbox({
      port: options.port,
      host: options.host,
      db: options.db,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      webhookUrl: options.webhookUrl,
      logger,
      seed: options.seed,
      clockStart: options.clockStart,
      importFile: options.importFile,
      exportOnExit: options.exportOnExit,
    });
  } catch (error) {
    if (error instanceof ListenError || error instanceof StoreOpenError || error instanceof SandboxOptionError) throw new CliError(error.message);
    throw error;
  }
  if (extras.fixtures) await loadFixturesAtStart(sandbox, extras.fixtures, options.db === ':memory:' ? undefined : options.db);
  if (pane) return runStartUi(sandbox, pane.source);
  // CI waits for exactly this line; the banner goes out in the same write.
  let banner = `service-sandbox ready at ${sandbox.baseUrl}\n`;
  if (options.logFormat === 'pretty') {
    const secret = options.secretIsDefault ? options.clientSecret : '(the one you set; not printed)';
    const auth = options.secretIsDefault ? `${options.clientId}:${options.clientSecret}` : `${options.clientId}:$SERVICE_SANDBOX_CLIENT_SECRET`;
    banner +=
      [
        `  ${chalk.dim('client id     ')} ${options.clientId}`,
        `  ${chalk.dim('client secret ')} ${secret}`,
        `  ${chalk.dim('database      ')} ${options.db === ':memory:' ? 'in memory (gone when stopped)' : options.db}`,
        ...(options.importFile ? [`  ${chalk.dim('imported      ')} ${options.importFile}`] : []),
        ...(options.exportOnExit ? [`  ${chalk.dim('export on exit')} ${options.exportOnExit} (on Ctrl-C, kill, or the end of the shell; not on kill -9)`] : []),
        ...(options.seed !== undefined || options.clockStart ? [`  ${chalk.dim('reproducible  ')} ${[options.seed !== undefined ? `seed ${options.seed}` : '', options.clockStart ? `clock stands at ${sandbox.context.clock.iso()} until \`clock advance\`` : ''].filter(Boolean).join('; ')}`] : []),
        `  ${chalk.dim('control plane ')} ${sandbox.origin}/_sandbox`,
        ...(options.db.endsWith('.service-sandbox/sandbox.db') ? [`  ${chalk.dim('tip           ')} add .service-sandbox/ to your .gitignore`] : []),
        `  ${chalk.dim('webhooks      ')} ${platformWebhookEndpoint(sandbox, options.clientId) ?? 'no endpoint yet (--webhook-url, or PATCH /config webhookEndpoint)'}; verify X-Service-Signature (or X-Grid-Signature, the same value) with:`,
        ...webhookPublicKey(sandbox).trimEnd().split('\n').map((line) => `    ${chalk.dim(line)}`),
        '',
        `  ${chalk.dim('try')}  curl -u ${auth} ${sandbox.baseUrl}/config`,
        `       npx service-sandbox clock advance 6m${options.port === 8080 ? '' : ` --url ${sandbox.origin}`}`,
        `       npx service-sandbox reset${options.port === 8080 ? '' : ` --url ${sandbox.origin}`}`,
        `  ${chalk.dim('stop with Ctrl-C')}`,
        '',
      ].join('\n') + '\n';
  }
  const running = sandbox;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`stopping (${signal}), finishing in-flight requests`);
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`service-sandbox: error while stopping: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // The terminal closing (SIGHUP) stops it as cleanly as Ctrl-C. Every handler is in place before
  // the ready line: a script that signals the sandbox as soon as it reads that line stops it cleanly.
  process.once('SIGHUP', () => stop('SIGHUP'));
  watchParent(() => stop('the end of the process that started it'));
  process.stdout.write(banner);
  if (options.logFormat === 'json') {
    logger.info('started', { baseUrl: sandbox.baseUrl, clientId: options.clientId, database: options.db, controlPlane: `${sandbox.origin}/_sandbox` });
  }
}

/**
 * Calls `onGone` once the process that started this one has ended (the sandbox is then
 * re-parented, so `npx service-sandbox & ... kill $!`, or the shell exiting, cannot leave it
 * serving). When a package runner started it (npx, `npm exec`, `npm run`, and the `sh -c` they
 * run it with), that is the process that ran the runner, usually a shell: the runner itself does
 * not end with that shell. Polls twice a second; the timer does not keep the process alive.
 */
export function watchParent(onGone: () => void): () => void {
  const parent = process.ppid;
  const chain = runnerChain();
  const timer = setInterval(() => {
    if (process.ppid !== parent || !chain.every(linkHolds)) {
      clearInterval(timer);
      onGone();
    }
  }, 500);
  timer.unref();
  return () => clearInterval(timer);
}
