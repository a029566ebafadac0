// Integration tests of a payments integration, run against a sandbox by `service-sandbox exec`
// (`npm test`): connectSandbox() reads the sandbox's address and credentials from the
// environment exec sets, and its helpers act through the API and the control plane.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { SandboxHttpError, connectSandbox } from 'service-sandbox';

const sandbox = connectSandbox();
const auth = `Basic ${Buffer.from(`${sandbox.clientId}:${sandbox.clientSecret}`).toString('base64')}`;

/** The integration's own HTTP calls (a real project has its client here). */
async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as T;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

describe('payments against service-sandbox', () => {
  it('talks to the sandbox exec started, through the installed package', () => {
    expect(sandbox.origin).toBe(process.env.SERVICE_SANDBOX_URL);
    expect(createRequire(import.meta.url).resolve('service-sandbox')).toContain(`${process.cwd()}/node_modules/service-sandbox/`);
  });

  it('a funded payout completes when the sandbox clock moves, and its webhook arrives', async () => {
    const customer = await api('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith', platformCustomerId: 'jane', currencies: ['USD'] });
    const account = await sandbox.fund('jane', '100.00', 'USD');
    expect(account.balance.amount).toBe(10000);
    const bank = await api('POST', '/customers/external-accounts', {
      customerId: customer.id,
      currency: 'MXN',
      accountInfo: {
        accountType: 'MXN_ACCOUNT',
        clabeNumber: '002180000112345321',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Maria Garcia', countryOfResidence: 'MX', address: { line1: 'Av. Reforma 1', postalCode: '06600', country: 'MX' } },
      },
    });
    const quote = await api('POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: account.id },
      destination: { destinationType: 'ACCOUNT', accountId: bank.id },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 2500,
      immediatelyExecute: true,
    });
    expect(quote.status).toBe('PROCESSING');
    await sandbox.advanceClock(5);
    const completed = await sandbox.waitForWebhook('OUTGOING_PAYMENT.COMPLETED', (event) => event.data.id === quote.transactionId);
    expect(completed.data.status).toBe('COMPLETED');
  });

  it('a KYC decision fires its webhook, and is final', async () => {
    // A fullName ending in 001 starts PENDING: under review, awaiting a decision.
    const customer = await api('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace001' });
    const decided = await sandbox.decideKyc(customer.id, 'approve');
    expect(decided.customer.kycStatus).toBe('APPROVED');
    const event = await sandbox.waitForWebhook('CUSTOMER.KYC_APPROVED', (e) => e.data.id === customer.id);
    expect(event.data.kycStatus).toBe('APPROVED');
    const again = await sandbox.decideKyc(customer.id, 'reject').catch((error: unknown) => error);
    expect(again).toBeInstanceOf(SandboxHttpError);
    expect((again as SandboxHttpError).status).toBe(409);
  });
});
