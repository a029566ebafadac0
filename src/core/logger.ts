import chalk from 'chalk';

/** Log output formats. */
export type LogFormat = 'pretty' | 'json';

/** A small structured logger. It never receives secrets: callers pass ids and outcomes only. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** One line per HTTP request. */
  request(fields: RequestLogFields): void;
}

/** What the request log gets of one request. */
export interface RequestLogFields {
  method: string;
  path: string;
  status: number;
  ms: number;
  requestId: string;
  /** An error answer's code and first field at fault (shown on pretty 4xx lines). */
  error?: { code: string; field?: string } | undefined;
  /** The request came from the service-sandbox CLI itself (marked on pretty lines). */
  fromCli?: boolean;
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
      // The JSON request line keeps its fields: method, path, status, ms, requestId.
      request: ({ method, path, status, ms, requestId }) => emit('info', 'request', { method, path, status, ms, requestId }),
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
    request: (f) => {
      const error = f.error && f.status >= 400 && f.status < 500 ? ` ${chalk.yellow(f.error.code)}${f.error.field ? ` ${chalk.dim('at')} ${f.error.field}` : ''}` : '';
      const cli = f.fromCli ? ` ${chalk.dim('(cli)')}` : '';
      write(`${chalk.dim(new Date().toISOString().slice(11, 23))} ${f.method.padEnd(6)} ${f.path} ${colorStatus(f.status)}${error} ${chalk.dim(`${f.ms.toFixed(1)}ms ${f.requestId}`)}${cli}\n`);
    },
  };
}
