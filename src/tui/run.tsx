import { render, type Instance } from 'ink';
import { Root, type LogSource } from './app.js';
import { SandboxClient, type Connection } from './client.js';
import { colorsEnabled } from './format.js';
import { views } from './views/index.js';

/** Thrown when the UI cannot run here (no terminal); the CLI prints it as one line. */
export class NoTerminalError extends Error {}

const ENTER_ALT_SCREEN = '\u001b[?1049h\u001b[H';
const LEAVE_ALT_SCREEN = '\u001b[?1049l';
const SHOW_CURSOR = '\u001b[?25h';

/**
 * Runs the terminal UI on this process's terminal until the user quits. It draws on the
 * alternate screen and puts the terminal back (screen, cursor, cooked mode) on quit, on
 * Ctrl-C, on SIGTERM and on a crash.
 */
export async function runUi(options: { connection: Connection; log?: LogSource; onExit?: () => void }): Promise<void> {
  const { stdin, stdout } = process;
  if (!stdin.isTTY || !stdout.isTTY) {
    throw new NoTerminalError(
      'the terminal UI needs an interactive terminal (stdin and stdout are not a TTY here); use the list commands instead: ' +
        '`service-sandbox customers list`, `accounts list`, `webhooks list`, `clock`',
    );
  }
  const client = new SandboxClient(options.connection);
  // Fail early and clearly if nothing answers (or the credentials are wrong).
  await client.control('GET', '/clock').catch((error: Error) => {
    throw new NoTerminalError(error.message);
  });

  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    try {
      if (stdin.isTTY) stdin.setRawMode(false);
    } catch {
      // the terminal is gone
    }
    stdout.write(`${SHOW_CURSOR}${LEAVE_ALT_SCREEN}`);
  };
  let instance: Instance | undefined;
  const onCrash = (error: unknown) => {
    try {
      instance?.unmount();
    } catch {
      // the tree is what crashed
    }
    restore();
    process.stderr.write(`service-sandbox ui crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  };
  const onSignal = () => {
    instance?.unmount();
    restore();
    options.onExit?.();
    process.exit(130);
  };
  process.on('exit', restore);
  process.once('uncaughtException', onCrash);
  process.once('unhandledRejection', onCrash);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);

  stdout.write(ENTER_ALT_SCREEN);
  instance = render(<Root connection={options.connection} views={views} log={options.log} color={colorsEnabled()} onExit={options.onExit} />, {
    exitOnCtrlC: false,
    patchConsole: true,
  });
  try {
    await instance.waitUntilExit();
  } finally {
    restore();
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}

export type { LogSource };
