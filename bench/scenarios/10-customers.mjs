// Customer creation: unique platformCustomerId per request, 10 connections, file database.
import { randomUUID } from 'node:crypto';

export async function run({ baseUrl, load }) {
  const body = () =>
    JSON.stringify({
      customerType: 'INDIVIDUAL',
      platformCustomerId: `bench-${randomUUID()}`,
      fullName: 'Bench Customer',
      birthDate: '1990-01-15',
      nationality: 'US',
      currencies: ['USD'],
    });
  const r = await load({
    url: baseUrl,
    connections: 10,
    requests: [{ method: 'POST', path: `${new URL(baseUrl).pathname}/customers`, setupRequest: (req) => ({ ...req, body: body() }) }],
  });
  if (r.non2xx || r.errors) throw new Error(`POST /customers: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return [
    { name: 'POST /customers, 10 connections', value: r.rps, unit: 'creates/s', target: '>= 1500 creates/s', ok: r.rps >= 1500 },
    { name: 'POST /customers p99, 10 connections', value: r.p99, unit: 'ms', target: '<= 30 ms', ok: r.p99 <= 30 },
  ];
}
