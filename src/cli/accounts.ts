import type { Command } from 'commander';
import { formatMoney, type InternalAccountView } from '../client/index.js';
import { CliError, clientOptions, using, withClientOptions } from './client.js';
import { withExamples } from './help.js';

/** `12345` cents as `123.45 USD`. */
export const formatAmount = formatMoney;

function printTable(accounts: InternalAccountView[]): void {
  if (accounts.length === 0) {
    process.stdout.write('no internal accounts\n');
    return;
  }
  const rows = accounts.map((a) => [a.id, a.customerId ?? 'platform', a.type, a.status, formatMoney(a.balance), formatMoney(a.totalBalance)]);
  const header = ['ID', 'OWNER', 'TYPE', 'STATUS', 'BALANCE', 'TOTAL'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i >= 4 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  process.stdout.write(`${[line(header), ...rows.map(line)].join('\n')}\n`);
}

/** `fund` and `accounts list`, against a running sandbox. */
export function registerAccountCommands(program: Command): void {
  withExamples(
    withClientOptions(
      program
        .command('fund <target> <amount> [currency]')
        .description(
          'credit an internal account at once. <target> is an internal account id, or a customer id or platformCustomerId plus a currency; ' +
            '<amount> is in major units (12.50), or the smallest unit with --minor',
        )
        .option('--minor', 'the amount is in the smallest unit (1250 = 12.50 USD)')
        .option('--json', 'print the funded account as JSON'),
    ).action(async (target: string, amount: string, currency: string | undefined, opts: Record<string, unknown>) => {
      if (opts.minor && (!/^\d+$/.test(amount) || Number(amount) <= 0)) {
        throw new CliError(`amount "${amount}" must be a positive whole number in the currency's smallest unit with --minor (e.g. 10000 for 100.00 USD)`);
      }
      if (currency !== undefined && !/^[A-Za-z]{3,4}$/.test(currency)) throw new CliError(`"${currency}" is not a currency code (USD, EUR, USDC, ...)`);
      const options = clientOptions(opts);
      const account = await using(options, (client) => client.fund(target, opts.minor ? Number(amount) : amount, currency));
      if (opts.json) process.stdout.write(`${JSON.stringify(account, null, 2)}\n`);
      else process.stdout.write(`funded ${account.id}${account.customerId ? ` (${account.customerId})` : ''}: balance ${formatMoney(account.balance)} (total ${formatMoney(account.totalBalance)})\n`);
    }),
    ['service-sandbox fund cust-42 12.50 USD', 'service-sandbox fund InternalAccount:019a4f2c-8b1e-7c3d-9f00-1234567890ab 100', 'service-sandbox fund Customer:019a4f2c-8b1e-7c3d-9f00-1234567890ab 1250 USD --minor'],
  );

  const accounts = program.command('accounts').description('internal accounts of a running sandbox');
  withExamples(accounts, ['service-sandbox accounts', 'service-sandbox accounts list --customer Customer:019a4f2c-8b1e-7c3d-9f00-1234567890ab']);
  withClientOptions(
    accounts
      .command('list', { isDefault: true })
      .description("list internal accounts with their balances: the platform's own and every customer's, or one customer's")
      .option('--customer <customerId>', "only this customer's accounts (id or platformCustomerId)")
      .option('--json', 'print the accounts as JSON'),
  ).action(async (opts: Record<string, unknown>) => {
    const options = clientOptions(opts);
    const list = await using(options, async (client) => {
      if (opts.customer === undefined) {
        const own = await client.request<{ data: InternalAccountView[] }>('GET', '/2025-10-13/platform/internal-accounts');
        return [...own.data, ...(await client.all<InternalAccountView>('/2025-10-13/customers/internal-accounts'))];
      }
      const customer = await client.customer(String(opts.customer));
      return client.all<InternalAccountView>('/2025-10-13/customers/internal-accounts', { customerId: customer.id });
    });
    if (opts.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    else printTable(list);
  });
}
