import { describe, expect, it } from 'vitest';
import { runSync as run, startCli } from '../helpers/cli.js';

describe('customers and kyc CLI', () => {
  it('lists customers and decides KYC through the same path (events included)', async () => {
    const { baseUrl, origin } = await startCli();
    const headers = { Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`, 'Content-Type': 'application/json' };
    const create = async (body: unknown) => (await (await fetch(`${baseUrl}/customers`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { id: string };
    expect(run(['customers', 'list', '--url', origin]).stdout).toContain('no customers');
    // The 001 suffix keeps an individual PENDING at creation: under review, awaiting a decision.
    const ada = await create({ customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace001', platformCustomerId: 'ada', currencies: ['USD'] });
    const acme = await create({ customerType: 'BUSINESS', businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14' }, currencies: ['USD'] });
    const listed = run(['customers', 'list', '--url', origin]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${ada.id}\\s+INDIVIDUAL\\s+PENDING\\s+ada\\s+Ada Lovelace001`));
    expect(listed.stdout).toContain('Acme Corporation');
    expect(run(['customers', 'list', '--type', 'BUSINESS', '--url', origin]).stdout).not.toContain('Ada Lovelace');

    // a platformCustomerId works as well as the id
    const hold = run(['kyc', 'hold', 'ada', '--url', origin]);
    expect(hold.status).toBe(0);
    expect(hold.stdout).toContain(`${ada.id} is now HOLD`);
    const reject = run(['kyc', 'reject', acme.id, '--url', origin]);
    expect(reject.stdout).toContain('is now REJECTED; verification Verification:');
    const approve = run(['kyc', 'approve', ada.id, '--url', origin]);
    expect(approve.stdout).toContain('is now APPROVED');
    const customer = (await (await fetch(`${baseUrl}/customers/${acme.id}`, { headers })).json()) as { kybStatus: string };
    expect(customer.kybStatus).toBe('REJECTED');
    const events = (await (await fetch(`${origin}/_sandbox/webhooks/deliveries?resourceId=${encodeURIComponent(acme.id)}`, { headers })).json()) as { data: { type: string }[] };
    expect(events.data.map((e) => e.type).sort()).toEqual(['CUSTOMER.KYB_PENDING', 'CUSTOMER.KYB_REJECTED']);

    // A decision is final: every later decision (another one, the same one, or a hold) is
    // refused with 409 naming the current status; customer and verification stay as they were.
    for (const [verb, who, status] of [['approve', acme.id, 'REJECTED'], ['hold', acme.id, 'REJECTED'], ['reject', ada.id, 'APPROVED'], ['approve', 'ada', 'APPROVED']] as const) {
      const refused = run(['kyc', verb, who, '--url', origin]);
      expect(refused.status, `${verb} ${who}`).toBe(1);
      expect(refused.stderr).toContain(`409 CONFLICT Customer ${who === 'ada' ? ada.id : who} is already ${status}`);
      expect(refused.stderr).toContain('decision is final');
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    }
    const after = (await (await fetch(`${baseUrl}/verifications?customerId=${encodeURIComponent(acme.id)}`, { headers })).json()) as { data: { verificationStatus: string }[] };
    expect(after.data.at(-1)!.verificationStatus).toBe('REJECTED');
    expect(((await (await fetch(`${baseUrl}/customers/${acme.id}`, { headers })).json()) as { kybStatus: string }).kybStatus).toBe('REJECTED');
    expect(((await (await fetch(`${baseUrl}/customers/${ada.id}`, { headers })).json()) as { kycStatus: string }).kycStatus).toBe('APPROVED');
    const adaEvents = (await (await fetch(`${origin}/_sandbox/webhooks/deliveries?resourceId=${encodeURIComponent(ada.id)}`, { headers })).json()) as { data: { type: string }[] };
    expect(adaEvents.data.filter((e) => e.type.startsWith('CUSTOMER.KYC_REJECTED'))).toEqual([]);
    expect(run(['kyc', '--help']).stdout).toContain('APPROVED and REJECTED are final');

    const unknown = run(['kyc', 'approve', 'Customer:nope', '--url', origin]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('they look like Customer:019a4f2c-8b1e-7c3d-9f00-1234567890ab');
    const absent = run(['kyc', 'approve', 'nobody', '--url', origin]);
    expect(absent.status).toBe(1);
    expect(absent.stderr.trim().split('\n')).toHaveLength(1);
    expect(absent.stderr).toContain('404 REFERENCE_NOT_FOUND');
  });
});
