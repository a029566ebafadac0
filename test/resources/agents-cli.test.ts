import { describe, expect, it } from 'vitest';
import { runSync as run, startCli } from '../helpers/cli.js';

describe('agents CLI', () => {
  it('lists agents and pending actions, approves and rejects them by action id', async () => {
    const { baseUrl, origin } = await startCli();
    const basic = { Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`, 'Content-Type': 'application/json' };
    const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = basic) =>
      (await (await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })).json()) as any;
    expect(run(['agents', 'list', '--url', origin]).stdout).toContain('no agents');

    const customer = await send('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace', platformCustomerId: 'ada', currencies: ['USD'] });
    const usd = (await send('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).data[0];
    await send('POST', `/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amount: 1_000_00 });
    const bank = await send('POST', '/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '12345678901', routingNumber: '021000021', bankAccountType: 'CHECKING', bankName: 'Chase', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace', address: { line1: '1 Main St', postalCode: '94105', country: 'US' } } },
    });
    const created = await send('POST', '/agents', {
      name: 'Bill payer',
      customerId: customer.id,
      policy: { permissions: ['CREATE_TRANSFERS'], defaultExecutionMode: 'APPROVAL_REQUIRED', spendingLimits: { currency: 'USD', perTransactionLimit: 500_00 } },
    });
    const { accessToken } = await send('POST', `/agents/device-codes/${created.deviceCode.code}/redeem`, undefined, {});
    const agentHeaders = { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' };
    const transfer = (amount: number) => send('POST', '/agents/me/transfer-out', { source: { accountId: usd.id }, destination: { accountId: bank.id }, amount }, agentHeaders);
    const first = await transfer(100_00);
    const second = await transfer(50_00);
    expect([first.status, second.status]).toEqual(['PENDING_APPROVAL', 'PENDING_APPROVAL']);

    const listed = run(['agents', 'list', '--url', origin]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${created.agent.id}\\s+Bill payer\\s+${customer.id}\\s+yes\\s+no\\s+APPROVAL_REQUIRED`));
    expect(listed.stdout).toMatch(new RegExp(`${first.id}\\s+${created.agent.id}\\s+TRANSFER_OUT\\s+100\\.00 USD`)); // major units, as the CLI takes them

    const approve = run(['agents', 'approve', first.id, '--url', origin]);
    expect(approve.status).toBe(0);
    expect(approve.stdout).toContain(`${first.id} is now APPROVED`);
    const reject = run(['agents', 'reject', second.id, '--reason', 'not this one', '--url', origin]);
    expect(reject.stdout).toContain(`${second.id} is now REJECTED (not this one)`);
    expect((await send('GET', `/agents/me/actions/${first.id}`, undefined, agentHeaders)).status).toBe('APPROVED');
    expect(run(['agents', 'list', '--url', origin]).stdout).toContain('no actions waiting for approval');

    const again = run(['agents', 'approve', first.id, '--url', origin]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('is not waiting for approval');
    expect(run(['agents', 'reject', 'nope', '--url', origin]).stderr).toContain('is not an agent action id');
  });
});
