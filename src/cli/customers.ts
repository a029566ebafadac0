import { Option, type Command } from 'commander';
import { call, CliError, clientOptions, withClientOptions, type ClientOptions } from './client.js';

interface Customer {
  id: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  platformCustomerId: string;
  kycStatus?: string;
  kybStatus?: string;
  fullName?: string;
  businessInfo?: { legalName?: string };
  isDeleted?: boolean;
}

async function allCustomers(options: ClientOptions, type: string | undefined, includeDeleted: boolean): Promise<Customer[]> {
  const out: Customer[] = [];
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '100' });
    if (type) query.set('customerType', type);
    if (includeDeleted) query.set('isIncludingDeleted', 'true');
    if (cursor) query.set('cursor', cursor);
    const page = (await call(options, 'GET', `/2025-10-13/customers?${query}`)) as { data: Customer[]; nextCursor?: string };
    out.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

function printCustomers(customers: Customer[]): void {
  if (customers.length === 0) {
    process.stdout.write('no customers\n');
    return;
  }
  const rows = customers.map((c) => [
    c.id,
    c.customerType,
    (c.kycStatus ?? c.kybStatus ?? '') + (c.isDeleted ? ' (deleted)' : ''),
    c.platformCustomerId,
    c.fullName ?? c.businessInfo?.legalName ?? '',
  ]);
  const header = ['ID', 'TYPE', 'STATUS', 'PLATFORM ID', 'NAME'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  process.stdout.write(`${[line(header), ...rows.map(line)].join('\n')}\n`);
}

const decisions = { approve: 'APPROVED', reject: 'REJECTED', hold: 'HOLD' } as const;

/** `customers list` and `kyc approve|reject|hold <customerId>`, against a running sandbox. */
export function registerCustomerCommands(program: Command): void {
  const customers = program.command('customers').description("list a running sandbox's customers");
  withClientOptions(
    customers
      .command('list', { isDefault: true })
      .description('print every customer with its KYC/KYB status')
      .addOption(new Option('--type <type>', 'only this customer type').choices(['INDIVIDUAL', 'BUSINESS']))
      .addOption(new Option('--deleted', 'include deleted customers')),
  ).action(async (opts: Record<string, unknown>) => {
    printCustomers(await allCustomers(clientOptions(opts), opts.type as string | undefined, Boolean(opts.deleted)));
  });

  const kyc = program.command('kyc').description('decide KYC/KYB for a customer, as the reviewer would (fires the same events)');
  for (const [verb, decision] of Object.entries(decisions)) {
    withClientOptions(
      kyc.command(`${verb} <customerId>`).description(
        verb === 'hold' ? 'put the customer on HOLD (more information may be asked for)' : `${verb} the customer's KYC/KYB (status ${decision})`,
      ),
    ).action(async (customerId: string, opts: Record<string, unknown>) => {
      if (!/^Customer:/.test(customerId)) throw new CliError(`"${customerId}" is not a customer id (they look like Customer:0190...)`);
      const body = (await call(clientOptions(opts), 'POST', `/_sandbox/customers/${encodeURIComponent(customerId)}/kyc-decision`, { decision })) as {
        customer: Customer;
        verification: { id: string; verificationStatus: string } | null;
      };
      const status = body.customer.kycStatus ?? body.customer.kybStatus;
      const verification = body.verification ? `; verification ${body.verification.id} is ${body.verification.verificationStatus}` : '';
      process.stdout.write(`${customerId} is now ${status}${verification}\n`);
    });
  }
}
