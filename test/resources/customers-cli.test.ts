import { describe, expect, it } from 'vitest';
import { runSync as run, startCli } from '../helpers/cli.js';

describe('customers and kyc CLI', () => {
  it('lists customers and decides KYC through the same path (events included)', async () => {
    const { baseUrl, origin } = await startCli();
    const headers = { Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`, 'Content-Type': 'application/json' };
    const create = async (body: unknown) => (await (await fetch(`${baseUrl}/customers`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { id: string };
    expect(run(['customers', 'list', '--url', origin]).stdout).toContain('no customers');
    const ada = await create({ customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace', platformCustomerId: 'ada', currencies: ['USD'] });
    const acme = await create({ customerType: 'BUSINESS', businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14' }, currencies: ['USD'] });
    const listed = run(['customers', 'list', '--url', origin]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${ada.id}\\s+INDIVIDUAL\\s+APPROVED\\s+ada\\s+Ada Lovelace`));
    expect(listed.stdout).toContain('Acme Corporation');
    expect(run(['customers', 'list', '--type', 'BUSINESS', '--url', origin]).stdout).not.toContain('Ada Lovelace');

    const hold = run(['kyc', 'hold', ada.id, '--url', origin]);
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

    // reject then approve is refused, saying why; customer and verification stay REJECTED
    const flipped = run(['kyc', 'approve', acme.id, '--url', origin]);
    expect(flipped.status).toBe(1);
    expect(flipped.stderr).toContain('409 CONFLICT');
    expect(flipped.stderr).toContain('terminal outcome');
    const after = (await (await fetch(`${baseUrl}/verifications?customerId=${encodeURIComponent(acme.id)}`, { headers })).json()) as { data: { verificationStatus: string }[] };
    expect(after.data.at(-1)!.verificationStatus).toBe('REJECTED');
    expect(((await (await fetch(`${baseUrl}/customers/${acme.id}`, { headers })).json()) as { kybStatus: string }).kybStatus).toBe('REJECTED');

    const unknown = run(['kyc', 'approve', 'Customer:nope', '--url', origin]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('they look like Customer:019a4f2c-8b1e-7c3d-9f00-1234567890ab');
    const absent = run(['kyc', 'approve', 'nobody', '--url', origin]);
    expect(absent.status).toBe(1);
    expect(absent.stderr.trim().split('\n')).toHaveLength(1);
    expect(absent.stderr).toContain('404 REFERENCE_NOT_FOUND');
    // a platformCustomerId works as well as the id
    expect(run(['kyc', 'approve', 'ada', '--url', origin]).stdout).toContain(`${ada.id} is now APPROVED`);
  });
});
