import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Command } from 'commander';
import { CliError } from './client.js';
import { withExamples } from './help.js';
import { addStartOptions, startOptionsOf } from './start-options.js';

/**
 * A watchdog for the command's process group: a small `sh` of its own (in its own group, so a
 * signal to exec's group does not take it too) that reads a pipe from exec. The pipe closes when
 * exec dies, however it dies (SIGKILL included, on Linux and macOS alike); then the watchdog sends
 * the group SIGTERM and, if anything is left after 5 s, SIGKILL. exec kills it when all went well.
 */
function startWatchdog(groupId: number): ChildProcess | undefined {
  const script =
    // `kill -s SIG -- -pgid`: the form dash, bash and zsh as sh all accept for a process group.
    'read -r _ ; kill -s TERM -- "-$1" 2>/dev/null || exit 0; i=0; ' +
    'while [ "$i" -lt 50 ] && kill -s 0 -- "-$1" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done; kill -s KILL -- "-$1" 2>/dev/null; exit 0';
  try {
    const watchdog = spawn('/bin/sh', ['-c', script, 'service-sandbox-exec-watchdog', String(groupId)], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    watchdog.on('error', () => undefined);
    watchdog.stdin?.on('error', () => undefined);
    watchdog.unref();
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    return watchdog;
  } catch {
    return undefined;
  }
}

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
    .option('--coverage <file>', 'when the command ends, write the integration coverage as JSON to <file> and as Markdown beside it (coverage.json -> coverage.md)')
    .option('--coverage-junit <file>', 'when the command ends, write the coverage as JUnit XML (a test case per rule, operation and webhook type)')
    .option('--require <profile>', 'readiness profile (YAML/JSON file, or a shipped name: payouts): exit 1 if the command left a required item uncovered')
    .passThroughOptions();
  addStartOptions(exec, true);
  withExamples(exec, [
    'service-sandbox exec -- npm test',
    'service-sandbox exec --db ./ci.db -- node integration.mjs',
    'service-sandbox exec --webhook-url http://127.0.0.1:4000/hooks -- npx vitest run',
    'service-sandbox exec --seed 42 --clock-start 2030-01-01T00:00:00Z -- npm test',
    'service-sandbox exec --import baseline.json --export-on-exit after.json -- npm test',
    'service-sandbox exec --coverage coverage.json --coverage-junit coverage.xml --require payouts -- npm test',
  ]);
  exec.action(async (command: string[], opts: Record<string, unknown>) => {
    const options = startOptionsOf(opts, true);
    const [{ ListenError, SandboxOptionError, startSandbox, StoreOpenError, runCoverage }, { createLogger, silentLogger }, { watchParent }, coverage] = await Promise.all([
      import('../index.js'),
      import('../core/logger.js'),
      import('./start.js'),
      import('./coverage.js'),
    ]);
    const coverageOutputs = coverage.coverageOutputsOf(opts);
    const logger = opts.log ? createLogger(options.logFormat, (line) => process.stderr.write(line)) : silentLogger;
    let sandbox;
    try {
      sandbox = await startSandbox({ ...options, logger });
    } catch (error) {
      if (error instanceof ListenError || error instanceof StoreOpenError || error instanceof SandboxOptionError) throw new CliError(error.message);
      throw error;
    }
    if (coverageOutputs?.profile) {
      // A profile naming what this sandbox does not know stops here, before the command runs.
      try {
        (await import('./coverage-report.js')).checkReadiness(runCoverage(sandbox), coverageOutputs.profile);
      } catch (error) {
        await sandbox.close();
        throw error;
      }
    }
    const env = {
      ...process.env,
      SERVICE_SANDBOX_URL: sandbox.origin,
      SERVICE_SANDBOX_BASE_URL: sandbox.baseUrl,
      SERVICE_SANDBOX_CLIENT_ID: sandbox.clientId,
      SERVICE_SANDBOX_CLIENT_SECRET: sandbox.clientSecret,
    };
    const [file, ...args] = command;
    // The command runs in a process group of its own (what `detached` makes on POSIX), so that
    // everything it starts (npm, a shell, test workers) can be signalled at once, and a watchdog
    // ends that group if exec itself is killed outright (SIGKILL leaves no handler to run).
    const posix = process.platform !== 'win32';
    const child = spawn(file!, args, { stdio: 'inherit', env, detached: posix });
    const signalCommand = (signal: NodeJS.Signals) => {
      try {
        if (posix && child.pid !== undefined) process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // already gone
      }
    };
    const watchdog = posix && child.pid !== undefined ? startWatchdog(child.pid) : undefined;
    const forward = (signal: NodeJS.Signals) => () => signalCommand(signal);
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    const onHup = forward('SIGHUP');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    process.on('SIGHUP', onHup);
    // The parent (a CI runner, a shell) died: end the command too, then stop.
    const stopWatching = watchParent(() => signalCommand('SIGTERM'));
    const status = await new Promise<number>((resolve) => {
      child.once('error', (error: NodeJS.ErrnoException) => {
        process.stderr.write(`service-sandbox: cannot run ${file}: ${error.code === 'ENOENT' ? 'command not found' : error.message}\n`);
        resolve(127);
      });
      child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
    });
    stopWatching();
    // The command is done; what it left running in its group goes with it (as it would with a
    // terminal's Ctrl-C), and the watchdog has nothing left to guard.
    signalCommand('SIGTERM');
    watchdog?.kill('SIGKILL');
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    process.off('SIGHUP', onHup);
    let readiness;
    let coverageError: unknown;
    try {
      readiness = coverageOutputs ? coverage.writeCoverageOutputs(runCoverage(sandbox), coverageOutputs) : undefined;
    } catch (error) {
      coverageError = error;
    }
    try {
      await sandbox.close();
    } catch (error) {
      // --export-on-exit could not write its file: say so, and do not let the run pass.
      process.stderr.write(`service-sandbox: ${(error as Error).message}\n`);
      process.exitCode = status || 1;
      return;
    }
    if (coverageError !== undefined) throw coverageError;
    // Not ready: a required item left uncovered fails a command that passed.
    process.exitCode = status === 0 && readiness && readiness.missing.length > 0 ? 1 : status;
  });
}
