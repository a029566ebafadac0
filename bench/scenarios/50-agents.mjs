// Agent quote + execute pairs within policy (AUTO, limits far away): the bearer-authenticated
// path through the policy guard into the quotes service, 10 connections, file database.
import { api, cpuRow } from '../run.mjs';

export async function run({ baseUrl, load }) {
  const customer = await api(baseUrl, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bench Agent Owner', currencies: ['USD'] });
  const usd = (await api(baseUrl, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).data[0];
  await api(baseUrl, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amount: 100_000_000_000 });
  const external = await api(baseUrl, 'POST', '/customers/external-accounts', {
    customerId: customer.id,
    currency: 'MXN',
    accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: '002180000118359123', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Maria Garcia', countryOfResidence: 'MX' } },
  });
  const created = await api(baseUrl, 'POST', '/agents', {
    name: 'Bench agent',
    customerId: customer.id,
    policy: {
      permissions: ['CREATE_QUOTES', 'EXECUTE_QUOTES'],
      defaultExecutionMode: 'AUTO',
      spendingLimits: { currency: 'USD', perTransactionLimit: 1_000_000, dailyLimit: 100_000_000_000, monthlyLimit: 100_000_000_000 },
    },
  });
  const redeemed = await fetch(`${baseUrl}/agents/device-codes/${created.deviceCode.code}/redeem`, { method: 'POST' }).then((r) => r.json());
  const base = new URL(baseUrl).pathname;
  const quoteBody = JSON.stringify({
    source: { sourceType: 'ACCOUNT', accountId: usd.id },
    destination: { destinationType: 'ACCOUNT', accountId: external.id },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1_000,
  });
  const r = await load({
    url: baseUrl,
    connections: 10,
    headers: { Authorization: `Bearer ${redeemed.accessToken}` },
    requests: [
      {
        method: 'POST',
        path: `${base}/agents/me/quotes`,
        body: quoteBody,
        onResponse: (status, body, context) => {
          context.quoteId = JSON.parse(body).id;
        },
      },
      { method: 'POST', setupRequest: (req, context) => ({ ...req, path: `${base}/agents/me/quotes/${encodeURIComponent(context.quoteId)}/execute` }) },
    ],
  });
  if (r.non2xx || r.errors) throw new Error(`agent quote + execute: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const pairs = r.rps / 2;
  return [
    { name: 'agent quote + execute pairs (policy AUTO), 10 connections', value: pairs, unit: 'pairs/s', target: '>= 400 pairs/s', ok: pairs >= 400 },
    { name: 'agent quote / execute p99, 10 connections', value: r.p99, unit: 'ms', target: '', ok: true },
    cpuRow('agent quote / execute', r),
  ];
}
