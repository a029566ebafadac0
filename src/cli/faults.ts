import { Option, type Command } from 'commander';
import type { FaultRule } from '../index.js';
import { call, CliError, clientOptions, withClientOptions } from './client.js';

/** The codes a bare --status answers with (the rule shows only a code it names otherwise). */
const GENERIC_CODES: Record<number, string> = { 429: 'RATE_LIMITED', 500: 'INTERNAL_ERROR', 503: 'SERVICE_UNAVAILABLE' };

function describe(rule: FaultRule): string {
  const target = rule.operationId ?? `${rule.method ?? 'ANY'} ${rule.path}`;
  const effect =
    rule.effect.type === 'STATUS' ? `answers ${rule.effect.status}${GENERIC_CODES[rule.effect.status] === rule.effect.code ? '' : ` ${rule.effect.code}`}` : rule.effect.type === 'LATENCY' ? `adds ${rule.effect.latencyMs}ms` : 'drops the connection';
  const scope = rule.remaining !== null ? `next ${rule.remaining} request${rule.remaining === 1 ? '' : 's'}` : `probability ${rule.probability} until cleared`;
  return `${rule.id}  ${target}  ${effect}  (${scope}; faulted ${rule.faulted})`;
}

function integer(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new CliError(`--${name} ${value} is not a whole number`);
    return Number(value);
  };
}

/** `faults add|list|clear`: fault injection on a running sandbox (`/_sandbox/faults`). */
export function registerFaultCommands(program: Command): void {
  const faults = program.command('faults').description('make chosen operations fail, answer late or drop the connection, to test client retries');

  withClientOptions(
    faults
      .command('add')
      .description('arm a fault rule for the platform')
      .addOption(new Option('--operation <operationId>', 'contract operationId to fault, e.g. createQuote'))
      .addOption(new Option('--path <pattern>', 'path under the API base instead, e.g. /quotes/* or /customers/**'))
      .addOption(new Option('--method <method>', 'with --path: only this HTTP method').choices(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']))
      .addOption(new Option('--status <code>', 'answer this status with the contract error envelope').choices(['429', '500', '503']))
      .addOption(new Option('--code <errorCode>', 'with --operation: answer this error code of the contract, at the status the contract gives it (e.g. CERT_CHAIN_INVALID)'))
      .addOption(new Option('--latency <ms>', 'delay matching requests by this many milliseconds').argParser(integer('latency')))
      .addOption(new Option('--drop', 'drop the connection without an answer'))
      .addOption(new Option('--retry-after <seconds>', 'with --status (or a retryable --code): the Retry-After to send').argParser(integer('retry-after')))
      .addOption(new Option('--times <n>', 'fault the next n matching requests (default 1)').argParser(integer('times')))
      .addOption(new Option('--probability <p>', 'fault each matching request with this chance (0-1] until cleared'))
      .addHelpText('after', '\nExamples:\n  service-sandbox faults add --operation createQuote --status 503 --times 2\n  service-sandbox faults add --operation createQuote --code CERT_CHAIN_INVALID\n  service-sandbox faults add --path "/customers/**" --latency 1500 --probability 0.5\n'),
  ).action(async (opts: Record<string, unknown>) => {
    const body: Record<string, unknown> = {};
    if (opts.operation !== undefined) body.operationId = opts.operation;
    if (opts.path !== undefined) body.path = opts.path;
    if (opts.method !== undefined) body.method = opts.method;
    if (opts.status !== undefined) body.status = Number(opts.status);
    if (opts.code !== undefined) body.code = String(opts.code).toUpperCase();
    if (opts.latency !== undefined) body.latencyMs = opts.latency;
    if (opts.drop) body.drop = true;
    if (opts.retryAfter !== undefined) body.retryAfterSeconds = opts.retryAfter;
    if (opts.times !== undefined) body.times = opts.times;
    if (opts.probability !== undefined) {
      const probability = Number(opts.probability);
      if (!(probability > 0 && probability <= 1)) throw new CliError(`--probability ${String(opts.probability)} must be a number above 0 and at most 1`);
      body.probability = probability;
    }
    const rule = (await call(clientOptions(opts), 'POST', '/_sandbox/faults', body)) as FaultRule;
    process.stdout.write(`armed ${describe(rule)}\n`);
  });

  withClientOptions(faults.command('list').description('list the armed fault rules')).action(async (opts: Record<string, unknown>) => {
    const { data } = (await call(clientOptions(opts), 'GET', '/_sandbox/faults')) as { data: FaultRule[] };
    process.stdout.write(data.length === 0 ? 'no fault rules armed\n' : `${data.map(describe).join('\n')}\n`);
  });

  withClientOptions(faults.command('clear [faultId]').description('remove one fault rule, or all of them')).action(
    async (faultId: string | undefined, opts: Record<string, unknown>) => {
      const path = faultId === undefined ? '/_sandbox/faults' : `/_sandbox/faults/${encodeURIComponent(faultId)}`;
      const { cleared } = (await call(clientOptions(opts), 'DELETE', path)) as { cleared: number };
      process.stdout.write(`cleared ${cleared} fault rule${cleared === 1 ? '' : 's'}\n`);
    },
  );
}
