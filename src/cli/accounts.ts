import type { Command } from 'commander';
import { call, CliError, clientOptions, withClientOptions, type ClientOptions } from './client.js';

interface Amount {
  amount: number;
  currency: { code: string; decimals?: number };
}
interface InternalAccount {
  id: string;
  customerId?: string;
  type: string;
  status: string;
  balance: Amount;
  totalBalance: Amount;
}

/** `12345` cents as `123.45 USD`. */
export function formatAmount({ amount, currency }: Amount): string {
  const decimals = currency.decimals ?? 2;
  const sign = amount < 0 ? '-' : '';
  const digits = String(Math.abs(amount)).padStart(decimals + 1, '0');
  const whole = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return `${sign}${whole} ${currency.code}`;
}

async function allCustomerAccounts(options: ClientOptions, customerId: string | undefined): Promise<InternalAccount[]> {
  const out: InternalAccount[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '100' });
    if (customerId) query.set('customerId', customerId);
    if (cursor) query.set('cursor', cursor);
    const page = (await call(options, 'GET', `/2025-10-13/customers/internal-accounts?${query}`)) as { data: InternalAccount[]; nextCursor?: string };
    out.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

function printTable(accounts: InternalAccount[]): void {
  if (accounts.length === 0) {
    process.stdout.write('no internal accounts\n');
    return;
  }
  const rows = accounts.map((a) => [a.id, a.customerId ?? 'platform', a.type, a.status, formatAmount(a.balance), formatAmount(a.totalBalance)]);
  const header = ['ID', 'OWNER', 'TYPE', 'STATUS', 'BALANCE', 'TOTAL'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i >= 4 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  process.stdout.write(`${[line(header), ...rows.map(line)].join('\n')}\n`);
}

/** `fund` and `accounts list`, against a running sandbox. */
export function registerAccountCommands(program: Command): void {
  withClientOptions(
    program
      .command('fund <internalAccountId> <amount>')
      .description('credit an internal account at once, in its currency and smallest unit (10000 = 100.00 USD)'),
  ).action(async (accountId: string, amount: string, opts: Record<string, unknown>) => {
    if (!/^\d+$/.test(amount) || Number(amount) <= 0) {
      throw new CliError(`amount "${amount}" must be a positive whole number in the currency's smallest unit (e.g. 10000 for 100.00 USD)`);
    }
    const account = (await call(clientOptions(opts), 'POST', `/2025-10-13/sandbox/internal-accounts/${encodeURIComponent(accountId)}/fund`, {
      amount: Number(amount),
    })) as InternalAccount;
    process.stdout.write(`funded ${account.id}: balance ${formatAmount(account.balance)} (total ${formatAmount(account.totalBalance)})\n`);
  });

  const accounts = program.command('accounts').description('internal accounts of a running sandbox');
  withClientOptions(
    accounts
      .command('list', { isDefault: true })
      .description("list internal accounts with their balances: the platform's own and every customer's, or one customer's")
      .option('--customer <customerId>', "only this customer's accounts"),
  ).action(async (opts: Record<string, unknown>) => {
    const options = clientOptions(opts);
    const customerId = opts.customer === undefined ? undefined : String(opts.customer);
    const list: InternalAccount[] = [];
    if (!customerId) list.push(...((await call(options, 'GET', '/2025-10-13/platform/internal-accounts')) as { data: InternalAccount[] }).data);
    list.push(...(await allCustomerAccounts(options, customerId)));
    printTable(list);
  });
}
