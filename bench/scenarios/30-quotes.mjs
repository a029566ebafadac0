// Quote + execute pairs: USD internal account to an MXN external account, 10 connections, file database.
import { api, cpuRow } from '../run.mjs';

export async function run({ baseUrl, load }) {
  const customer = await api(baseUrl, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bench Sender', currencies: ['USD'] });
  const usd = (await api(baseUrl, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).data[0];
  await api(baseUrl, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amount: 100_000_000_000 });
  const external = await api(baseUrl, 'POST', '/customers/external-accounts', {
    customerId: customer.id,
    currency: 'MXN',
    accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: '002180000118359123', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Maria Garcia', countryOfResidence: 'MX' } },
  });
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
    requests: [
      {
        method: 'POST',
        path: `${base}/quotes`,
        body: quoteBody,
        onResponse: (status, body, context) => {
          context.quoteId = JSON.parse(body).id;
        },
      },
      { method: 'POST', setupRequest: (req, context) => ({ ...req, path: `${base}/quotes/${encodeURIComponent(context.quoteId)}/execute` }) },
    ],
  });
  if (r.non2xx || r.errors) throw new Error(`quote + execute: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const pairs = r.rps / 2;
  return [
    { name: 'quote + execute pairs, 10 connections', value: pairs, unit: 'pairs/s', target: '>= 500 pairs/s', ok: pairs >= 500 },
    { name: 'quote / execute p99, 10 connections', value: r.p99, unit: 'ms', target: '', ok: true },
    cpuRow('quote / execute', r),
  ];
}
