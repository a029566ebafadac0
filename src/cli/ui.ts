import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Option, type Command } from 'commander';
import type { RunningSandbox } from '../index.js';
import { createLogger, type Logger } from '../core/logger.js';
import { CliError, clientOptions, withClientOptions } from './client.js';

/** What `start --ui` / `start --fixtures <file>` asked for (read by start.ts). */
export interface StartExtras {
  ui: boolean;
  fixtures: string | undefined;
}

let extras: StartExtras = { ui: false, fixtures: undefined };

/** The `--ui` / `--fixtures` flags of the start command being run. */
export function startExtras(): StartExtras {
  return extras;
}

/** The terminal UI module, loaded only when used (ink and react stay out of every other command's start). */
async function loadTui(): Promise<typeof import('../tui/run.js')> {
  // ink decides once, as it loads, whether it runs in CI (a `CI` or `CONTINUOUS_INTEGRATION`
  // variable) and there draws nothing until it exits: a blank screen for someone who opens the
  // UI in a terminal of a CI job, or whose shell exports CI. The UI runs only on a terminal
  // (run.tsx refuses otherwise), so ink loads believing it is not in CI; the variables are put
  // back at once for everything else.
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  process.env.CI = 'false';
  process.env.CONTINUOUS_INTEGRATION = 'false';
  try {
    // A literal specifier: the build splits the UI (ink, react) into a chunk of its own, loaded here only.
    return await import('../tui/run.js');
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** A bounded request log the `start --ui` pane shows. */
export function logPane(limit = 200): { logger: Logger; source: { lines(): readonly string[]; subscribe(listener: () => void): () => void } } {
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  const base = createLogger('pretty', (text) => {
    for (const line of text.split('\n')) if (line) lines.push(line);
    if (lines.length > limit) lines.splice(0, lines.length - limit);
    for (const listener of listeners) listener();
  });
  // The UI's own plumbing (its clock reads and change stream) stays out of the pane.
  const logger: Logger = {
    ...base,
    request: (fields) => {
      if (fields.method === 'GET' && /^\/_sandbox\/(clock|changes)$/.test(fields.path)) return;
      base.request(fields);
    },
  };
  return {
    logger,
    source: {
      lines: () => lines,
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}

/**
 * `start --fixtures <file>`: applies the file to the fresh sandbox before the ready line,
 * through the same in-process API calls as `load`. A broken file closes the sandbox and fails.
 */
export async function loadFixturesAtStart(sandbox: RunningSandbox, file: string, database?: string): Promise<void> {
  const [{ parseFixtureText }, { applyFixturesInProcess }] = await Promise.all([import('../core/fixture-text.js'), import('../index.js')]);
  try {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
    const document = parseFixtureText(basename(file), text);
    await applyFixturesInProcess(sandbox, document, {
      file: basename(file),
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
    });
  } catch (error) {
    await sandbox.close();
    const message = (error as Error).message;
    // The usual cause: the same start run twice on the same database file, whose records the
    // fixture makes again.
    const again = database !== undefined && / 409 /.test(message);
    throw new CliError(
      again
        ? `${message}\n  ${database} already holds what an earlier start made: add --memory for a fresh sandbox each time, or delete that file and start again.`
        : message,
    );
  }
}

/** `start --ui`: the terminal UI over the in-process sandbox, its request log in a pane; quitting stops the sandbox. */
export async function runStartUi(sandbox: RunningSandbox, log: ReturnType<typeof logPane>['source']): Promise<void> {
  const { runUi, NoTerminalError } = await loadTui();
  try {
    await runUi({ connection: { url: sandbox.origin, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret }, log });
  } catch (error) {
    await sandbox.close();
    if (error instanceof NoTerminalError) throw new CliError(error.message);
    throw error;
  }
  await sandbox.close();
  process.exit(0);
}

/** `service-sandbox ui`, and the `--ui` / `--fixtures` flags of `start`. */
export function registerUiCommands(program: Command): void {
  const start = program.commands.find((command) => command.name() === 'start');
  if (start) {
    start
      .addOption(new Option('--ui', 'run the terminal UI over this sandbox (the request log goes into a pane)'))
      .addOption(new Option('--fixtures <file>', 'apply a fixture file (JSON or YAML) before the ready line'))
      .hook('preAction', (command) => {
        const opts = command.opts<{ ui?: boolean; fixtures?: string }>();
        extras = { ui: Boolean(opts.ui), fixtures: opts.fixtures };
      });
  }

  withClientOptions(
    program
      .command('ui')
      .description('interactive terminal UI over a running sandbox: customers, accounts, transactions, webhooks, clock and jobs, live')
      .addOption(new Option('--platform <clientId[:secret]>', 'show another platform (its client id, and secret unless it is --client-secret)')),
  ).action(async (opts: Record<string, unknown>) => {
    const options = clientOptions(opts);
    if (typeof opts.platform === 'string') {
      const colon = opts.platform.indexOf(':');
      options.clientId = colon < 0 ? opts.platform : opts.platform.slice(0, colon);
      if (colon >= 0) options.clientSecret = opts.platform.slice(colon + 1);
    }
    const { runUi, NoTerminalError } = await loadTui();
    try {
      await runUi({ connection: options });
    } catch (error) {
      if (error instanceof NoTerminalError) throw new CliError(error.message);
      throw error;
    }
  });
}
