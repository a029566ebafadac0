import { Command, CommanderError } from 'commander';
import { packageVersion } from '../core/version.js';
import { call, CliError, clientOptions, formatDuration, parseDuration, withClientOptions } from './client.js';
import { addExampleFooters, optionsText, withExamples } from './help.js';
import { registerAccountCommands } from './accounts.js';
import { registerCustomerCommands } from './customers.js';
import { registerExecCommand } from './exec.js';
import { registerSetupCommands } from './setup.js';
import { registerWebhooksCommands } from './webhooks.js';
import { addStartOptions, startOptionsOf } from './start-options.js';
import { registerFaultCommands } from './faults.js';
import { registerUiCommands } from './ui.js';
import { registerStateCommands } from './state.js';
import { registerAgentCommands } from './agents.js';
import { registerWalletCommands } from './wallet.js';
import { registerStablecoinCommands } from './stablecoins.js';
import { registerLogsCommand } from './logs.js';
import { registerCoverageCommand } from './coverage.js';

/** Builds the commander program. Other CLI files add their commands with one `register...(program)` line below. */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name('service-sandbox')
    .description('A local, stateful emulator of the Service payments API.')
    .version(packageVersion(), '-v, --version')
    .showSuggestionAfterError(true)
    .enablePositionalOptions()
    .configureOutput({ outputError: (text, write) => write(text) })
    .exitOverride();

  const start = withExamples(
    addStartOptions(program.command('start', { isDefault: true }).description('start the sandbox (the default command)')).action(async (opts: Record<string, unknown>) => {
      const { runStart } = await import('./start.js');
      await runStart(startOptionsOf(opts));
    }),
    ['service-sandbox', 'service-sandbox --port 0 --memory --quiet', 'service-sandbox --db ./test.db --webhook-url http://127.0.0.1:4000/webhooks'],
  );

  const clock = program.command('clock').description('read or move the sandbox clock of a running sandbox');
  withExamples(clock, ['service-sandbox clock', 'service-sandbox clock advance 6m', 'service-sandbox clock advance 1h30m --url http://127.0.0.1:9000', 'service-sandbox clock reset']);
  withClientOptions(clock.command('show', { isDefault: true }).description('print the sandbox time')).action(async (opts) => {
    const body = (await call(clientOptions(opts), 'GET', '/_sandbox/clock')) as { now: string; offsetSeconds: number; pendingJobs: number; stillSince?: string };
    const from = body.stillSince ? `ahead of its start ${body.stillSince}, standing still until \`clock advance\`` : 'ahead of real time';
    process.stdout.write(`${body.now}  (${formatDuration(body.offsetSeconds)} ${from}, ${body.pendingJobs} pending jobs)\n`);
  });
  withClientOptions(
    clock.command('advance <duration>').description('move the clock forward (e.g. 30s, 6m, 2h) and run every job that falls due'),
  ).action(async (duration: string, opts) => {
    const seconds = parseDuration(duration);
    if (seconds <= 0) throw new CliError('the duration must be more than zero');
    const body = (await call(clientOptions(opts), 'POST', '/_sandbox/clock/advance', { seconds })) as { now: string };
    process.stdout.write(`sandbox clock is now ${body.now}\n`);
  });
  withClientOptions(
    clock.command('reset').description('put the clock back to real time (for every platform); pending jobs keep their due times'),
  ).action(async (opts) => {
    const body = (await call(clientOptions(opts), 'POST', '/_sandbox/clock/reset')) as { now: string; previous: string; pendingJobs: number; stillSince?: string };
    const ahead = Math.round((Date.parse(body.previous) - Date.parse(body.now)) / 1000);
    process.stdout.write(
      body.stillSince
        ? `sandbox clock is back at its start ${body.now}${ahead > 0 ? ` (it was ${formatDuration(ahead)} ahead)` : ''}, standing still; ${body.pendingJobs} pending jobs keep their due times\n`
        : ahead > 0
        ? `sandbox clock is back at real time ${body.now} (it was ${formatDuration(ahead)} ahead); ${body.pendingJobs} pending jobs keep their due times\n`
        : `sandbox clock already follows real time: ${body.now}\n`,
    );
  });

  withExamples(
    withClientOptions(program.command('reset').description("wipe the platform's data in a running sandbox (the clock stays where it is: `clock reset` moves it)")).action(async (opts) => {
      const options = clientOptions(opts);
      await call(options, 'POST', '/_sandbox/reset');
      process.stdout.write(`reset: every customer, account, transaction and event of ${options.clientId} is gone\n`);
    }),
    ['service-sandbox reset', 'service-sandbox reset --url http://127.0.0.1:9000 --client-id other-platform'],
  );

  registerExecCommand(program);
  registerSetupCommands(program);
  registerAccountCommands(program);
  registerCustomerCommands(program);
  registerWebhooksCommands(program);
  registerFaultCommands(program);
  registerUiCommands(program);
  registerStateCommands(program);
  registerAgentCommands(program);
  registerWalletCommands(program);
  registerStablecoinCommands(program);
  registerLogsCommand(program);
  registerCoverageCommand(program);

  program.addHelpText('after', `\nStart flags (service-sandbox [start] [flags]):\n${optionsText(start)}\n`);
  withExamples(program, [
    'service-sandbox --port 0 --memory',
    'service-sandbox exec -- npm test',
    'service-sandbox customers create --name "Ada Lovelace" --platform-id cust-42 && npx service-sandbox fund cust-42 12.50 USD',
  ]);
  addExampleFooters(program);
  return program;
}

const HELP_OR_VERSION = new Set(['-h', '--help', '-v', '--version']);

/**
 * Commander hands any word it does not know to the default command (`start`), which then
 * complains about "too many arguments". Walk the command words first: an unknown one is an
 * "unknown command" with commander's suggestion; flags alone mean `start`.
 */
function checkCommandWords(program: Command, argv: string[]): string[] {
  const args = argv.slice(2);
  let command = program;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i]!;
    if (command.commands.length === 0) break;
    if (word.startsWith('-')) {
      if (command === program && !HELP_OR_VERSION.has(word)) args.splice(i, 0, 'start');
      break;
    }
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      if (word === 'help') break;
      const nested = command.commands.flatMap((c) => c.commands.filter((sub) => sub.name() === word).map((sub) => `${c.name()} ${sub.name()}`));
      if (nested.length > 0) {
        process.stderr.write(`error: unknown command '${word}'\n(Did you mean ${nested.join(' or ')}?)\n`);
        throw new CommanderError(2, 'commander.unknownCommand', `unknown command '${word}'`);
      }
      command.args = [word];
      (command as unknown as { unknownCommand(): never }).unknownCommand();
    }
    command = next!;
  }
  return [...argv.slice(0, 2), ...args];
}

const USAGE_ERRORS = new Set([
  'commander.unknownCommand',
  'commander.unknownOption',
  'commander.excessArguments',
  'commander.missingArgument',
  'commander.optionMissingArgument',
  'commander.missingMandatoryOptionValue',
  'commander.invalidArgument',
]);

/** Runs the CLI; errors become one line on stderr and a non-zero exit (2 for usage errors), never a stack trace. */
export async function main(argv: string[]): Promise<void> {
  // `service-sandbox ... | head` closes the pipe early: stop quietly, as other CLIs do.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(checkCommandWords(program, argv));
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = USAGE_ERRORS.has(error.code) ? 2 : error.exitCode;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`service-sandbox: ${message}\n`);
    process.exitCode = error instanceof CliError ? error.exitCode : 1;
  }
}
