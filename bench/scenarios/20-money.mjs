// Fund + transfer-out pairs on one customer's USD account, 10 connections, file database.
import { api, cpuRow } from '../run.mjs';

export async function run({ baseUrl, load }) {
  const customer = await api(baseUrl, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bench Payer', currencies: ['USD'] });
  const accounts = await api(baseUrl, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`);
  const usd = accounts.data[0];
  const external = await api(baseUrl, 'POST', '/customers/external-accounts', {
    customerId: customer.id,
    currency: 'USD',
    accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456789000', routingNumber: '021000021', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Bench Payer', countryOfResidence: 'US' } },
  });
  const base = new URL(baseUrl).pathname;
  const r = await load({
    url: baseUrl,
    connections: 10,
    requests: [
      { method: 'POST', path: `${base}/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, body: JSON.stringify({ amount: 1_000 }) },
      { method: 'POST', path: `${base}/transfer-out`, body: JSON.stringify({ source: { accountId: usd.id }, destination: { accountId: external.id }, amount: 1_000 }) },
    ],
  });
  if (r.non2xx || r.errors) throw new Error(`fund + transfer-out: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const pairs = r.rps / 2;
  return [
    { name: 'fund + transfer-out pairs, 10 connections', value: pairs, unit: 'pairs/s', target: '>= 800 pairs/s', ok: pairs >= 800 },
    { name: 'fund / transfer-out p99, 10 connections', value: r.p99, unit: 'ms', target: '', ok: true },
    cpuRow('fund / transfer-out', r),
  ];
}
