import { Option, type Command } from 'commander';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { idShape, isIdOf, type CustomerView } from '../client/index.js';
import { CliError, clientOptions, using, withClientOptions } from './client.js';
import { withExamples } from './help.js';

function printCustomers(customers: CustomerView[]): void {
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

/** Reads a JSON object from a file, or from stdin for `-`. */
export function readJsonArgument(source: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(source === '-' ? 0 : source, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${source === '-' ? 'stdin' : source}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(`${source === '-' ? 'stdin' : source} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CliError(`${source === '-' ? 'stdin' : source} must hold a JSON object`);
  return value as Record<string, unknown>;
}

/** `--json [file|-]`: with a value, the request body's other fields; present at all, JSON output. */
export const jsonInputOption = () => new Option('--json [file]', 'print JSON instead of a summary; with a file (or - for stdin), also take the other request fields from it');

/** The request fields `--json <file|->` supplied, if any. */
export const jsonInput = (opts: Record<string, unknown>): Record<string, unknown> => (typeof opts.json === 'string' ? readJsonArgument(opts.json) : {});

/** Prints `value` as JSON when `--json` was given, else the summary. */
export function output(opts: Record<string, unknown>, value: unknown, summary: string): void {
  process.stdout.write(opts.json !== undefined ? `${JSON.stringify(value, null, 2)}\n` : `${summary}\n`);
}

/** A customer id argument: the real shape, or a platformCustomerId (looked up). */
export function checkCustomerArgument(value: string): string {
  if (value.startsWith('Customer:') && !isIdOf('Customer', value)) {
    throw new CliError(`"${value}" is not a customer id; they look like ${idShape('Customer')} (or pass the platformCustomerId)`);
  }
  return value;
}

const decisions = { approve: 'APPROVED', reject: 'REJECTED', hold: 'HOLD' } as const;

/** `customers list|create` and `kyc approve|reject|hold|link <customer>`, against a running sandbox. */
export function registerCustomerCommands(program: Command): void {
  const customers = program.command('customers').description("list and create a running sandbox's customers");
  withExamples(customers, [
    'service-sandbox customers',
    'service-sandbox customers create --name "Ada Lovelace" --platform-id cust-42 --currencies USD,EUR',
    'service-sandbox customers create --business --name "Acme LLC" --tax-id 12-3456789',
  ]);
  withClientOptions(
    customers
      .command('list', { isDefault: true })
      .description('print every customer with its KYC/KYB status')
      .addOption(new Option('--type <type>', 'only this customer type').choices(['INDIVIDUAL', 'BUSINESS']))
      .addOption(new Option('--deleted', 'include deleted customers'))
      .option('--json', 'print the customers as JSON'),
  ).action(async (opts: Record<string, unknown>) => {
    const list = await using(clientOptions(opts), (client) =>
      client.all<CustomerView>('/2025-10-13/customers', { customerType: opts.type as string | undefined, isIncludingDeleted: opts.deleted ? 'true' : undefined }),
    );
    if (opts.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    else printCustomers(list);
  });

  withExamples(
    withClientOptions(
      customers
        .command('create')
        .description('create a customer (POST /customers): an individual by default, --business for a business')
        .option('--business', 'a BUSINESS customer (needs --name; country, tax id and incorporation date have defaults)')
        .option('--name <name>', 'fullName of an individual, legalName of a business')
        .option('--platform-id <id>', 'platformCustomerId (your own id for the customer)')
        .option('--email <email>', 'email address')
        .option('--currencies <codes>', 'comma-separated currencies of its internal accounts, e.g. USD,EUR')
        .option('--country <CC>', 'nationality of an individual, businessInfo.country of a business (ISO 3166-1 alpha-2)')
        .option('--birth-date <YYYY-MM-DD>', 'birth date of an individual')
        .option('--tax-id <id>', 'businessInfo.taxId of a business (default 12-3456789 with country US)')
        .option('--registration-number <n>', 'businessInfo.registrationNumber (its suffix picks the KYB outcome, see README)')
        .option('--incorporated-on <YYYY-MM-DD>', 'businessInfo.incorporatedOn (default 2020-01-01)')
        .addOption(jsonInputOption()),
    ).action(async (opts: Record<string, unknown>) => {
      const str = (key: string) => (opts[key] === undefined ? undefined : String(opts[key]));
      const given = jsonInput(opts);
      const business = Boolean(opts.business) || given.customerType === 'BUSINESS';
      const body: Record<string, unknown> = { customerType: business ? 'BUSINESS' : 'INDIVIDUAL', ...given };
      if (str('platformId')) body.platformCustomerId = str('platformId');
      if (str('email')) body.email = str('email');
      if (str('currencies')) body.currencies = str('currencies')!.split(',').map((c) => c.trim().toUpperCase()).filter(Boolean);
      if (business) {
        const info = { ...(given.businessInfo as Record<string, unknown> | undefined) };
        if (str('name')) info.legalName = str('name');
        if (str('country')) info.country = str('country')!.toUpperCase();
        if (str('taxId')) info.taxId = str('taxId');
        if (str('registrationNumber')) info.registrationNumber = str('registrationNumber');
        if (str('incorporatedOn')) info.incorporatedOn = str('incorporatedOn');
        if (info.legalName === undefined) throw new CliError('a business needs --name (its legal name)');
        info.country ??= 'US';
        info.taxId ??= info.country === 'US' ? '12-3456789' : undefined;
        info.incorporatedOn ??= '2020-01-01';
        body.businessInfo = info;
      } else {
        if (str('name')) body.fullName = str('name');
        if (str('country')) body.nationality = str('country')!.toUpperCase();
        if (str('birthDate')) body.birthDate = str('birthDate');
      }
      const customer = await using(clientOptions(opts), (client) => client.request<CustomerView>('POST', '/2025-10-13/customers', body));
      const name = customer.fullName ?? customer.businessInfo?.legalName ?? '';
      output(opts, customer, `created ${customer.customerType.toLowerCase()} ${customer.id}${name ? ` (${name})` : ''}, platformCustomerId ${customer.platformCustomerId}, ${customer.customerType === 'INDIVIDUAL' ? 'KYC' : 'KYB'} ${customer.kycStatus ?? customer.kybStatus}`);
    }),
    [
      'service-sandbox customers create --name "Ada Lovelace" --currencies USD',
      'service-sandbox customers create --business --name "Acme LLC" --registration-number REG-003',
      'echo \'{"email":"ada@example.com","birthDate":"1990-01-31"}\' | npx service-sandbox customers create --name "Ada Lovelace" --json -',
    ],
  );

  const kyc = program
    .command('kyc')
    .description('KYC/KYB of a customer: a hosted-page link, or a decision as the reviewer would make it (fires the same events; APPROVED and REJECTED are final)');
  withExamples(kyc, [
    'service-sandbox kyc link cust-42',
    'service-sandbox kyc approve Customer:019a4f2c-8b1e-7c3d-9f00-1234567890ab',
    'service-sandbox kyc hold cust-42',
  ]);
  for (const [verb, decision] of Object.entries(decisions)) {
    withClientOptions(
      kyc
        .command(`${verb} <customer>`)
        .description(
          (verb === 'hold'
            ? 'put a customer under review on HOLD (more information may be asked for)'
            : `${verb} the customer's KYC/KYB: customer and verification become ${decision}`) +
            '; <customer> is an id or platformCustomerId. A decision is final: a customer already APPROVED or REJECTED is refused (409, exit 1)',
        )
        .option('--json', 'print the customer and verification as JSON'),
    ).action(async (customerArg: string, opts: Record<string, unknown>) => {
      const body = await using(clientOptions(opts), (client) => client.decideKyc(checkCustomerArgument(customerArg), decision));
      const status = body.customer.kycStatus ?? body.customer.kybStatus;
      const verification = body.verification ? `; verification ${body.verification.id} is ${body.verification.verificationStatus}` : '';
      output(opts, body, `${body.customer.id} is now ${status}${verification}`);
    });
  }
  withClientOptions(
    kyc
      .command('link <customer>')
      .description('make a hosted KYC/KYB link for the customer (POST /customers/{id}/kyc-link) and print its URL')
      .option('--redirect-uri <url>', 'where the page sends the person when done')
      .option('--json', 'print the whole answer as JSON'),
  ).action(async (customerArg: string, opts: Record<string, unknown>) => {
    const link = await using(clientOptions(opts), async (client) => {
      const customer = await client.customer(checkCustomerArgument(customerArg));
      return client.request<{ kycUrl: string; expiresAt: string }>(
        'POST',
        `/2025-10-13/customers/${encodeURIComponent(customer.id)}/kyc-link`,
        opts.redirectUri ? { redirectUri: String(opts.redirectUri) } : {},
        { 'Idempotency-Key': randomUUID() },
      );
    });
    output(opts, link, link.kycUrl);
    if (opts.json === undefined) process.stderr.write(`single use, expires ${link.expiresAt} (sandbox time)\n`);
  });
}
