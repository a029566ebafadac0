// Customer creation at 10 connections with a file database: a unique platformCustomerId per
// request. Measured twice: with `currencies: ["USD"]` (one internal account) and without
// `currencies` (one account per configured currency, eleven by default). Each with the sandbox's
// CPU time per request.
import { cpuRow } from '../run.mjs';
import { randomUUID } from 'node:crypto';

/** The body of one create: a unique platformCustomerId, and `currencies` when given. */
export const customerBody = (currencies) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: `bench-${randomUUID()}`,
  fullName: 'Bench Customer',
  birthDate: '1990-01-15',
  nationality: 'US',
  ...(currencies ? { currencies } : {}),
});

async function create({ baseUrl, load }, currencies) {
  const body = () => JSON.stringify(customerBody(currencies));
  const r = await load({
    url: baseUrl,
    connections: 10,
    requests: [{ method: 'POST', path: `${new URL(baseUrl).pathname}/customers`, setupRequest: (req) => ({ ...req, body: body() }) }],
  });
  if (r.non2xx || r.errors) throw new Error(`POST /customers: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r;
}

export async function run(options) {
  const one = await create(options, ['USD']);
  const all = await create(options, undefined);
  return [
    { name: 'POST /customers (1 account), 10 connections', value: one.rps, unit: 'creates/s', target: '>= 1500 creates/s', ok: one.rps >= 1500 },
    { name: 'POST /customers (1 account) p99', value: one.p99, unit: 'ms', target: '<= 30 ms', ok: one.p99 <= 30 },
    { ...cpuRow('POST /customers (1 account)', one), target: '<= 0.20 ms', ok: one.cpuMs === undefined || one.cpuMs <= 0.2 },
    { name: 'POST /customers (11 accounts), 10 connections', value: all.rps, unit: 'creates/s', target: '>= 3000 creates/s', ok: all.rps >= 3000 },
    { name: 'POST /customers (11 accounts) p99', value: all.p99, unit: 'ms', target: '<= 30 ms', ok: all.p99 <= 30 },
    { ...cpuRow('POST /customers (11 accounts)', all), target: '<= 0.30 ms', ok: all.cpuMs === undefined || all.cpuMs <= 0.3 },
  ];
}
