import { Option, type Command } from 'commander';
import { randomUUID } from 'node:crypto';
import { currencyOf } from '../core/money.js';
import { resolve as resolvePath } from 'node:path';
import { formatMoney, toMinorUnits, type CustomerView, type InternalAccountView, type SandboxClient } from '../client/index.js';
import { CliError, clientOptions, using, withClientOptions } from './client.js';
import { checkCustomerArgument, jsonInput, jsonInputOption, output } from './customers.js';
import { withExamples } from './help.js';
import { DEFAULT_KEY_FILE, signWalletPayout } from './wallet.js';

const EXAMPLE_ID = '019a4f2c-8b1e-7c3d-9f00-1234567890ab';

/** The rails `external-accounts create` builds from flags; anything else goes through `--json`. */
const RAILS = {
  USD_ACCOUNT: { currency: 'USD', fields: ['accountNumber', 'routingNumber'] },
  EUR_ACCOUNT: { currency: 'EUR', fields: ['iban'] },
  GBP_ACCOUNT: { currency: 'GBP', fields: ['sortCode', 'accountNumber'] },
  MXN_ACCOUNT: { currency: 'MXN', fields: ['clabeNumber'] },
} as const satisfies Record<string, { currency: string; fields: readonly string[] }>;

interface Quote {
  id: string;
  status: string;
  source?: { sourceType: string; accountId?: string };
  paymentInstructions?: { accountOrWalletInfo: { accountType: string; payloadToSign?: string } }[];
  expiresAt: string;
  sendingCurrency: { code: string; decimals: number };
  receivingCurrency: { code: string; decimals: number };
  totalSendingAmount: number;
  totalReceivingAmount: number;
  exchangeRate: number;
  feesIncluded: number;
  transactionId?: string;
}

const quoteSummary = (q: Quote) =>
  `quote ${q.id} ${q.status}: sends ${formatMoney({ amount: q.totalSendingAmount, currency: q.sendingCurrency })} ` +
  `(fees ${formatMoney({ amount: q.feesIncluded, currency: q.sendingCurrency })}), receives ${formatMoney({ amount: q.totalReceivingAmount, currency: q.receivingCurrency })} ` +
  `at ${q.exchangeRate}; expires ${q.expiresAt}${q.transactionId ? `; transaction ${q.transactionId}` : ''}`;

/** The `payloadToSign` of a quote paid from an embedded wallet, if it is one. */
const walletPayloadOf = (quote: Quote) => quote.paymentInstructions?.find((p) => p.accountOrWalletInfo.accountType === 'EMBEDDED_WALLET')?.accountOrWalletInfo.payloadToSign;

/**
 * `POST /quotes/{id}/execute`; a payout from an embedded wallet is signed first (its
 * `payloadToSign` stamped with the `wallet login` session key in `keyFile`).
 */
async function executeQuote(client: SandboxClient, quote: Quote, keyFile: string): Promise<Quote> {
  const payload = walletPayloadOf(quote);
  const headers: Record<string, string> = { 'Idempotency-Key': randomUUID() };
  if (payload !== undefined) headers['Service-Wallet-Signature'] = signWalletPayout(quote, payload, keyFile);
  return client.request<Quote>('POST', `/2025-10-13/quotes/${encodeURIComponent(quote.id)}/execute`, undefined, headers);
}

const keyFileOption = () =>
  new Option('--key-file <file>', 'for a payout from an embedded wallet: the session key `wallet login <walletAccountId>` saved').default(DEFAULT_KEY_FILE);

/** `platforms create`, `config set webhook`, `external-accounts create`, `quotes create|execute`. */
export function registerSetupCommands(program: Command): void {
  const platforms = program.command('platforms').description('platforms (sets of credentials) of a running sandbox');
  withExamples(
    withClientOptions(
      platforms
        .command('create <clientId> <clientSecret>')
        .description('create another platform with its own credentials (POST /_sandbox/platforms)')
        .option('--unregulated', 'an unregulated platform: KYC by the service, End User Terms consent required')
        .option('--paperwork-skipping', 'businesses resolve without documents or owners')
        .option('--counterparty-rules', 'travel-rule checks on self-custody wallets')
        .option('--webhook-url <url>', "the new platform's webhook endpoint")
        .option('--json', 'print the platform as JSON'),
    ).action(async (newId: string, newSecret: string, opts: Record<string, unknown>) => {
      const platform = await using(clientOptions(opts), (client) =>
        client.createPlatform({
          clientId: newId,
          clientSecret: newSecret,
          regulated: !opts.unregulated,
          paperworkSkipping: Boolean(opts.paperworkSkipping),
          counterpartyRules: Boolean(opts.counterpartyRules),
          ...(opts.webhookUrl ? { webhookEndpoint: String(opts.webhookUrl) } : {}),
        }),
      );
      output(opts, platform, `created platform ${platform.id} (${platform.regulated ? 'regulated' : 'unregulated'}); use it with --client-id ${platform.clientId} --client-secret <its secret>`);
    }),
    ['service-sandbox platforms create acme acme-secret-123', 'service-sandbox platforms create fintech fintech-secret --unregulated', 'service-sandbox platforms create kyb-fast kyb-fast-secret --paperwork-skipping'],
  );
  withExamples(platforms, ['service-sandbox platforms create acme acme-secret-123', 'service-sandbox platforms create fintech fintech-secret --unregulated']);

  const config = program.command('config').description("the platform's configuration (PATCH /config)");
  withExamples(config, ['service-sandbox config set webhook http://127.0.0.1:4000/webhooks', 'service-sandbox config set webhook http://127.0.0.1:4000/hooks --client-id acme --client-secret acme-secret-123']);
  const set = config.command('set').description('change one setting');
  withExamples(set, ['service-sandbox config set webhook http://127.0.0.1:4000/webhooks', 'service-sandbox config set uma-domain example.com']);
  const settings = { webhook: ['webhookEndpoint', 'the webhook endpoint (http or https URL)'], 'uma-domain': ['umaDomain', 'the UMA domain'] } as const;
  for (const [name, [field, what]] of Object.entries(settings)) {
    withClientOptions(set.command(`${name} <value>`).description(`set ${what}`).option('--json', 'print the configuration as JSON')).action(
      async (value: string, opts: Record<string, unknown>) => {
        const updated = await using(clientOptions(opts), (client) => client.request<Record<string, unknown>>('PATCH', '/2025-10-13/config', { [field]: value }));
        output(opts, updated, `${field} is now ${String(updated[field])}`);
      },
    );
  }

  const external = program.command('external-accounts').description('payout destinations (external accounts)');
  withExamples(external, [
    'service-sandbox external-accounts create --customer cust-42 --account-number 123456789 --routing-number 021000021',
    'service-sandbox external-accounts create --customer cust-42 --iban DE89370400440532013000',
  ]);
  withExamples(
    withClientOptions(
      external
        .command('create')
        .description(
          'create an external account for a customer (or, without --customer, for the platform). The rail follows the flags: ' +
            '--account-number + --routing-number USD_ACCOUNT, --iban EUR_ACCOUNT, --sort-code + --account-number GBP_ACCOUNT, --clabe MXN_ACCOUNT; other rails with --json',
        )
        .option('--customer <customer>', 'owner: customer id or platformCustomerId')
        .option('--account-number <n>', 'account number (USD, GBP)')
        .option('--routing-number <n>', 'ABA routing number (USD)')
        .option('--iban <iban>', 'IBAN (EUR)')
        .option('--sort-code <n>', 'sort code (GBP)')
        .option('--clabe <n>', 'CLABE (MXN)')
        .option('--beneficiary-name <name>', "the account holder's name (default: the customer's name)")
        .option('--beneficiary-country <CC>', "the account holder's country of residence (default: the customer's, else US)")
        .addOption(jsonInputOption()),
    ).action(async (opts: Record<string, unknown>) => {
      const str = (key: string) => (opts[key] === undefined ? undefined : String(opts[key]));
      const given = jsonInput(opts);
      const info: Record<string, unknown> = { ...(given.accountInfo as Record<string, unknown> | undefined) };
      if (str('iban')) Object.assign(info, { accountType: 'EUR_ACCOUNT', iban: str('iban')!.replace(/\s+/g, '') });
      else if (str('clabe')) Object.assign(info, { accountType: 'MXN_ACCOUNT', clabeNumber: str('clabe') });
      else if (str('sortCode')) Object.assign(info, { accountType: 'GBP_ACCOUNT', sortCode: str('sortCode'), accountNumber: str('accountNumber') });
      else if (str('routingNumber') || str('accountNumber')) Object.assign(info, { accountType: 'USD_ACCOUNT', accountNumber: str('accountNumber'), routingNumber: str('routingNumber') });
      if (!info.accountType) throw new CliError('say which account: --account-number and --routing-number, --iban, --sort-code and --account-number, --clabe, or --json <file> with accountInfo');
      const options = clientOptions(opts);
      const account = await using(options, async (client) => {
        const customer = opts.customer === undefined ? undefined : await client.customer(checkCustomerArgument(String(opts.customer)));
        if (!info.beneficiary) {
          const name = str('beneficiaryName') ?? customer?.fullName ?? customer?.businessInfo?.legalName;
          if (!name) throw new CliError('name the account holder with --beneficiary-name');
          const residence = (str('beneficiaryCountry') ?? (customer?.nationality as string | undefined) ?? (customer?.address as { country?: string } | undefined)?.country ?? 'US').toUpperCase();
          info.beneficiary =
            customer?.customerType === 'BUSINESS' && !str('beneficiaryName')
              ? { beneficiaryType: 'BUSINESS', legalName: name, countryOfResidence: residence }
              : { beneficiaryType: 'INDIVIDUAL', fullName: name, countryOfResidence: residence };
        }
        const rail = RAILS[info.accountType as keyof typeof RAILS];
        const body: Record<string, unknown> = { currency: rail?.currency, ...given, accountInfo: info };
        if (customer) body.customerId = customer.id;
        return client.request<{ id: string; status: string; currency: string; beneficiaryVerificationStatus?: string }>(
          'POST',
          customer ? '/2025-10-13/customers/external-accounts' : '/2025-10-13/platform/external-accounts',
          body,
          { 'Idempotency-Key': randomUUID() },
        );
      });
      output(opts, account, `created ${String(info.accountType)} ${account.id} (${account.currency}, ${account.status}${account.beneficiaryVerificationStatus ? `, name check ${account.beneficiaryVerificationStatus}` : ''})`);
    }),
    [
      'service-sandbox external-accounts create --customer cust-42 --account-number 123456789 --routing-number 021000021',
      'service-sandbox external-accounts create --customer cust-42 --iban DE89370400440532013000',
      'service-sandbox external-accounts create --customer cust-42 --json brl-pix.json',
    ],
  );

  const quotes = program.command('quotes').description('price and execute payments');
  withExamples(quotes, [
    `service-sandbox quotes create --from cust-42 --from-currency USD --to ExternalAccount:${EXAMPLE_ID} --amount 25`,
    `service-sandbox quotes execute Quote:${EXAMPLE_ID}`,
  ]);
  withExamples(
    withClientOptions(
      quotes
        .command('create')
        .description('price a payment from an internal account to an account (POST /quotes)')
        .requiredOption('--from <source>', 'internal account id, or customer id / platformCustomerId with --from-currency')
        .option('--from-currency <code>', "which of the customer's accounts pays")
        .requiredOption('--to <accountId>', 'destination: external or internal account id')
        .requiredOption('--amount <amount>', 'in major units (25.00) of the locked side, or the smallest unit with --minor')
        .option('--minor', '--amount is in the smallest unit')
        .addOption(new Option('--lock <side>', 'which side --amount fixes').choices(['sending', 'receiving']).default('sending'))
        .option('--receiving-currency <code>', 'currency of the destination (for --lock receiving in major units)')
        .option('--execute', 'execute at once (immediatelyExecute; from an embedded wallet, signed with the `wallet login` session key)')
        .addOption(keyFileOption())
        .option('--description <text>', 'description of the payment')
        .addOption(jsonInputOption()),
    ).action(async (opts: Record<string, unknown>) => {
      const options = clientOptions(opts);
      const keyFile = resolvePath(String(opts.keyFile));
      const quote = await using(options, async (client) => {
        const source: InternalAccountView = await client.resolveAccount(String(opts.from), opts.fromCurrency === undefined ? undefined : String(opts.fromCurrency));
        const lock = opts.lock === 'receiving' ? 'RECEIVING' : 'SENDING';
        let code = source.balance.currency.code;
        if (lock === 'RECEIVING') {
          const to = String(opts.to);
          code = opts.receivingCurrency ? String(opts.receivingCurrency).toUpperCase() : to.startsWith('InternalAccount:') ? (await client.internalAccount(to)).balance.currency.code : '';
          if (!code && !opts.minor) throw new CliError('with --lock receiving, give --receiving-currency (or --minor)');
        }
        const amount = opts.minor ? Number(opts.amount) : toMinorUnits(String(opts.amount), currencyOf(code)?.decimals ?? 2, code);
        if (!Number.isSafeInteger(amount) || amount <= 0) throw new CliError(`--amount ${String(opts.amount)} must be a positive amount`);
        // An embedded wallet's payout is signed over the quote's payloadToSign, known once the
        // quote exists: create it, then execute it signed (immediatelyExecute cannot carry the stamp).
        const fromWallet = source.type === 'EMBEDDED_WALLET';
        const body: Record<string, unknown> = {
          source: { sourceType: 'ACCOUNT', accountId: source.id, ...(source.customerId ? { customerId: source.customerId } : {}) },
          destination: { destinationType: 'ACCOUNT', accountId: String(opts.to) },
          lockedCurrencySide: lock,
          lockedCurrencyAmount: amount,
          ...(opts.execute && !fromWallet ? { immediatelyExecute: true } : {}),
          ...(opts.description ? { description: String(opts.description) } : {}),
          ...jsonInput(opts),
        };
        const created = await client.request<Quote>('POST', '/2025-10-13/quotes', body, { 'Idempotency-Key': randomUUID() });
        return opts.execute && fromWallet ? executeQuote(client, created, keyFile) : created;
      });
      output(opts, quote, quoteSummary(quote));
    }),
    [
      `service-sandbox quotes create --from cust-42 --from-currency USD --to ExternalAccount:${EXAMPLE_ID} --amount 25`,
      `service-sandbox quotes create --from InternalAccount:${EXAMPLE_ID} --to ExternalAccount:${EXAMPLE_ID} --amount 100 --lock receiving --receiving-currency MXN --execute`,
      `service-sandbox wallet login InternalAccount:${EXAMPLE_ID} && service-sandbox quotes create --from InternalAccount:${EXAMPLE_ID} --to InternalAccount:${EXAMPLE_ID} --amount 10 --execute`,
    ],
  );
  withExamples(
    withClientOptions(
      quotes
        .command('execute <quoteId>')
        .description('execute a quote (POST /quotes/{id}/execute); a payout from an embedded wallet is signed with the session key `wallet login` saved')
        .addOption(keyFileOption())
        .option('--json', 'print the quote as JSON'),
    ).action(async (quoteId: string, opts: Record<string, unknown>) => {
      if (!quoteId.startsWith('Quote:')) throw new CliError(`"${quoteId}" is not a quote id; they look like Quote:${EXAMPLE_ID}`);
      const keyFile = resolvePath(String(opts.keyFile));
      const quote = await using(clientOptions(opts), async (client) =>
        executeQuote(client, await client.request<Quote>('GET', `/2025-10-13/quotes/${encodeURIComponent(quoteId)}`), keyFile),
      );
      output(opts, quote, quoteSummary(quote));
    }),
    [
      `service-sandbox quotes execute Quote:${EXAMPLE_ID}`,
      `service-sandbox quotes execute Quote:${EXAMPLE_ID} --json`,
      `service-sandbox quotes execute Quote:${EXAMPLE_ID} --key-file ./wallet-key.json`,
    ],
  );
}

export type { CustomerView };
