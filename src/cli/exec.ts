import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Command } from 'commander';
import { CliError } from './client.js';
import { withExamples } from './help.js';
import { addStartOptions, startOptionsOf } from './start-options.js';

/**
 * `service-sandbox exec [start flags] -- <command...>` (Firebase's `emulators:exec`): starts a
 * sandbox (in memory and on a free port unless told otherwise), runs the command with the
 * sandbox's address and credentials in its environment, stops the sandbox and exits with the
 * command's status (128 + the signal number when a signal ended it).
 */
export function registerExecCommand(program: Command): void {
  const exec = program
    .command('exec')
    .description('start a sandbox, run <command> against it (SERVICE_SANDBOX_URL, _BASE_URL, _CLIENT_ID, _CLIENT_SECRET in its environment), stop it, exit with its status')
    .argument('<command...>', 'the command and its arguments (after --)')
    .option('--log', 'print the request log (on stderr)')
    .passThroughOptions();
  addStartOptions(exec, true);
  withExamples(exec, [
    'service-sandbox exec -- npm test',
    'service-sandbox exec --db ./ci.db -- node integration.mjs',
    'service-sandbox exec --webhook-url http://127.0.0.1:4000/hooks -- npx vitest run',
  ]);
  exec.action(async (command: string[], opts: Record<string, unknown>) => {
    const options = startOptionsOf(opts, true);
    const [{ ListenError, SandboxOptionError, startSandbox }, { createLogger, silentLogger }, { StoreOpenError }, { watchParent }] = await Promise.all([
      import('../index.js'),
      import('../server/logger.js'),
      import('../store/db.js'),
      import('./start.js'),
    ]);
    const logger = opts.log ? createLogger(options.logFormat, (line) => process.stderr.write(line)) : silentLogger;
    let sandbox;
    try {
      sandbox = await startSandbox({ ...options, logger });
    } catch (error) {
      if (error instanceof ListenError || error instanceof StoreOpenError || error instanceof SandboxOptionError) throw new CliError(error.message);
      throw error;
    }
    const env = {
      ...process.env,
      SERVICE_SANDBOX_URL: sandbox.origin,
      SERVICE_SANDBOX_BASE_URL: sandbox.baseUrl,
      SERVICE_SANDBOX_CLIENT_ID: sandbox.clientId,
      SERVICE_SANDBOX_CLIENT_SECRET: sandbox.clientSecret,
    };
    const [file, ...args] = command;
    const child = spawn(file!, args, { stdio: 'inherit', env });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    // The parent (a CI runner, a shell) died: end the command too, then stop.
    const stopWatching = watchParent(() => child.kill('SIGTERM'));
    const status = await new Promise<number>((resolve) => {
      child.once('error', (error: NodeJS.ErrnoException) => {
        process.stderr.write(`service-sandbox: cannot run ${file}: ${error.code === 'ENOENT' ? 'command not found' : error.message}\n`);
        resolve(127);
      });
      child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
    });
    stopWatching();
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    await sandbox.close();
    process.exitCode = status;
  });
}
