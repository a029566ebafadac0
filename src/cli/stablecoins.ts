import type { Command } from 'commander';
import { call, CliError, clientOptions, withClientOptions } from './client.js';

interface Stablecoin {
  id: string;
  symbol: string;
  serviceOperationsStatus: string;
}
interface StablecoinOperation {
  id: string;
  operationType: string;
  status: string;
}

const OPERATOR_STATUSES = ['ENABLING', 'ENABLED', 'DISABLED'];

/** `stablecoins request-enablement | set-status | fund-operation`: the operator's side of stablecoin issuance, against a running sandbox. */
export function registerStablecoinCommands(program: Command): void {
  const stablecoins = program.command('stablecoins').description('stablecoin enablement and funding decisions on a running sandbox (the operator and provider side)');

  withClientOptions(
    stablecoins.command('request-enablement <stablecoinId>').description('ask for a stablecoin to be enabled for Service operations (NOT_ENABLED -> PENDING_APPROVAL)'),
  ).action(async (id: string, opts: Record<string, unknown>) => {
    const coin = (await call(clientOptions(opts), 'POST', `/_sandbox/stablecoins/${encodeURIComponent(id)}/request-enablement`)) as Stablecoin;
    process.stdout.write(`${coin.id} ${coin.symbol}: ${coin.serviceOperationsStatus}\n`);
  });

  withClientOptions(
    stablecoins.command('set-status <stablecoinId> <status>').description(`the operator's decision: ${OPERATOR_STATUSES.join(', ')}`),
  ).action(async (id: string, status: string, opts: Record<string, unknown>) => {
    const wanted = status.toUpperCase();
    if (!OPERATOR_STATUSES.includes(wanted)) throw new CliError(`status "${status}" must be one of ${OPERATOR_STATUSES.join(', ')}`);
    const coin = (await call(clientOptions(opts), 'POST', `/_sandbox/stablecoins/${encodeURIComponent(id)}/service-operations-status`, {
      serviceOperationsStatus: wanted,
    })) as Stablecoin;
    process.stdout.write(`${coin.id} ${coin.symbol}: ${coin.serviceOperationsStatus}\n`);
  });

  withClientOptions(
    stablecoins
      .command('fund-operation <stablecoinOperationId>')
      .description('the external funds of a PENDING_FUNDING mint (wire) or burn (tokens) arrived: PROCESSING, then COMPLETED on the clock'),
  ).action(async (id: string, opts: Record<string, unknown>) => {
    const operation = (await call(clientOptions(opts), 'POST', `/_sandbox/stablecoin-operations/${encodeURIComponent(id)}/fund`)) as StablecoinOperation;
    process.stdout.write(`${operation.id} ${operation.operationType}: ${operation.status}\n`);
  });
}
