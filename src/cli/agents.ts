import { Option, type Command } from 'commander';
import { formatMoney } from '../client/index.js';
import { call, CliError, clientOptions, withClientOptions, type ClientOptions } from './client.js';

interface Agent {
  id: string;
  name: string;
  customerId: string;
  isPaused: boolean;
  isConnected: boolean;
  policy: { defaultExecutionMode: string; spendingLimits: { currency: string } };
  usage: { dailySpend: number; dailyTransactionCount: number };
}

interface AgentAction {
  id: string;
  agentId: string;
  status: string;
  type: string;
  quote?: { totalSendingAmount: number; sendingCurrency: { code: string; decimals?: number }; expiresAt: string };
  transferDetails?: { amount: number; currency: string };
  rejectionReason?: string;
  createdAt: string;
}

const API = '/2025-10-13';

async function allPages<T>(options: ClientOptions, path: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '100' });
    if (cursor) query.set('cursor', cursor);
    const page = (await call(options, 'GET', `${API}${path}?${query}`)) as { data: T[]; nextCursor?: string };
    out.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

const amountOf = (action: AgentAction) =>
  // In major units, as every amount the CLI shows and takes.
  action.quote
    ? formatMoney({ amount: action.quote.totalSendingAmount, currency: action.quote.sendingCurrency })
    : action.transferDetails
      ? formatMoney({ amount: action.transferDetails.amount, currency: { code: action.transferDetails.currency } })
      : '';

/** The agent of a pending action: the approval endpoints are addressed by agent and action. */
async function pendingAction(options: ClientOptions, actionId: string): Promise<AgentAction> {
  if (!/^AgentAction:/.test(actionId)) throw new CliError(`"${actionId}" is not an agent action id (they look like AgentAction:0190...)`);
  const action = (await allPages<AgentAction>(options, '/agents/approvals')).find((a) => a.id === actionId);
  if (!action) throw new CliError(`${actionId} is not waiting for approval (see \`service-sandbox agents list\`)`);
  return action;
}

function printDecision(action: AgentAction): void {
  const detail = action.status === 'REJECTED' && action.rejectionReason ? ` (${action.rejectionReason})` : action.status === 'FAILED' ? ' (execution failed, e.g. the quote expired; nothing moved)' : '';
  process.stdout.write(`${action.id} is now ${action.status}${detail}\n`);
}

/** `agents list` and `agents approve|reject <actionId>`: the human in the loop, from a terminal. */
export function registerAgentCommands(program: Command): void {
  const agents = program.command('agents').description("list a running sandbox's agents and decide their pending actions");
  withClientOptions(agents.command('list', { isDefault: true }).description('print every agent, then the actions waiting for approval')).action(
    async (opts: Record<string, unknown>) => {
      const options = clientOptions(opts);
      const list = await allPages<Agent>(options, '/agents');
      if (list.length === 0) {
        process.stdout.write('no agents\n');
      } else {
        process.stdout.write(
          table(
            ['ID', 'NAME', 'CUSTOMER', 'CONNECTED', 'PAUSED', 'MODE', 'TODAY'],
            list.map((a) => [a.id, a.name, a.customerId, a.isConnected ? 'yes' : 'no', a.isPaused ? 'yes' : 'no', a.policy.defaultExecutionMode, `${a.usage.dailySpend} ${a.policy.spendingLimits.currency} in ${a.usage.dailyTransactionCount}`]),
          ),
        );
      }
      const pending = await allPages<AgentAction>(options, '/agents/approvals');
      if (pending.length === 0) {
        process.stdout.write('no actions waiting for approval\n');
        return;
      }
      process.stdout.write(`\nwaiting for approval (service-sandbox agents approve|reject <actionId>):\n`);
      process.stdout.write(table(['ACTION', 'AGENT', 'TYPE', 'AMOUNT', 'SUBMITTED'], pending.map((a) => [a.id, a.agentId, a.type, amountOf(a), a.createdAt])));
    },
  );
  withClientOptions(agents.command('approve <actionId>').description('approve a pending action: the quote or transfer executes now')).action(
    async (actionId: string, opts: Record<string, unknown>) => {
      const options = clientOptions(opts);
      const action = await pendingAction(options, actionId);
      printDecision((await call(options, 'POST', `${API}/agents/${encodeURIComponent(action.agentId)}/actions/${encodeURIComponent(actionId)}/approve`)) as AgentAction);
    },
  );
  withClientOptions(
    agents
      .command('reject <actionId>')
      .description('reject a pending action: nothing executes')
      .addOption(new Option('--reason <text>', 'why, kept on the action')),
  ).action(async (actionId: string, opts: Record<string, unknown>) => {
    const options = clientOptions(opts);
    const action = await pendingAction(options, actionId);
    const body = opts.reason === undefined ? undefined : { reason: String(opts.reason) };
    printDecision((await call(options, 'POST', `${API}/agents/${encodeURIComponent(action.agentId)}/actions/${encodeURIComponent(actionId)}/reject`, body)) as AgentAction);
  });
}
