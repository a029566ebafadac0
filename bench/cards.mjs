// Card authorisation simulations on one ACTIVE card, 10 connections, file database: each one is
// decisioning (state, descriptor suffix, limits, funding sources in order) plus a real hold in
// the ledger, a CARD transaction and its CARD_TRANSACTION.AUTHORIZED event.
import { api, cpuRow } from './run.mjs';

export async function run({ baseUrl, load }) {
  const customer = await api(baseUrl, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bench Cardholder', currencies: ['USD'] });
  const accounts = await api(baseUrl, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`);
  const usd = accounts.data[0];
  await api(baseUrl, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amount: 1_000_000 });
  const card = await api(baseUrl, 'POST', '/cards', { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [usd.id], platformCardId: 'bench-card-123' });
  const base = new URL(baseUrl).pathname;
  const body = JSON.stringify({ amount: 1, currency: { code: 'USD' }, merchant: { descriptor: 'BENCH COFFEE', mcc: '5814', country: 'US' } });
  const r = await load({
    url: baseUrl,
    connections: 10,
    requests: [{ method: 'POST', path: `${base}/sandbox/cards/${encodeURIComponent(card.id)}/simulate/authorization`, body }],
  });
  if (r.non2xx || r.errors) throw new Error(`card authorisations: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return [
    { name: 'card authorisation simulations, 10 connections', value: r.rps, unit: 'auths/s', target: '>= 800 auths/s', ok: r.rps >= 800 },
    { name: 'card authorisation p99, 10 connections', value: r.p99, unit: 'ms', target: '', ok: true },
    cpuRow('card authorisation', r),
  ];
}
