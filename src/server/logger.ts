import chalk from 'chalk';

/** Log output formats. */
export type LogFormat = 'pretty' | 'json';

/** A small structured logger. It never receives secrets: callers pass ids and outcomes only. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** One line per HTTP request. */
  request(fields: { method: string; path: string; status: number; ms: number; requestId: string }): void;
}

/** A logger that drops everything (tests, `--quiet`). */
export const silentLogger: Logger = {
  info: () => {},
  warn: () => {},
  error: () => {},
  request: () => {},
};

/** Builds a logger writing to `out` (stderr for problems in pretty mode). */
export function createLogger(format: LogFormat, write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  if (format === 'json') {
    const emit = (level: string, msg: string, fields?: Record<string, unknown>) =>
      write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
    return {
      info: (m, f) => emit('info', m, f),
      warn: (m, f) => emit('warn', m, f),
      error: (m, f) => emit('error', m, f),
      request: (f) => emit('info', 'request', f),
    };
  }
  const fmt = (fields?: Record<string, unknown>) =>
    fields ? ` ${Object.entries(fields).map(([k, v]) => `${chalk.dim(`${k}=`)}${String(v)}`).join(' ')}` : '';
  const colorStatus = (status: number) =>
    status >= 500 ? chalk.red(status) : status >= 400 ? chalk.yellow(status) : chalk.green(status);
  return {
    info: (m, f) => write(`${chalk.cyan('info')}  ${m}${fmt(f)}\n`),
    warn: (m, f) => write(`${chalk.yellow('warn')}  ${m}${fmt(f)}\n`),
    error: (m, f) => write(`${chalk.red('error')} ${m}${fmt(f)}\n`),
    request: (f) =>
      write(`${chalk.dim(new Date().toISOString().slice(11, 23))} ${f.method.padEnd(6)} ${f.path} ${colorStatus(f.status)} ${chalk.dim(`${f.ms.toFixed(1)}ms ${f.requestId}`)}\n`),
  };
}
