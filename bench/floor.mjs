#!/usr/bin/env node
// What any server would pay on this machine, in this spell of it, for `POST /customers`, beside
// what the sandbox pays (issue 26). Two parts of a create that no code of the sandbox can avoid:
//
// - a stateless server: hono on @hono/node-server (the sandbox's stack) reading the same body
//   from the socket, parsing it and answering a customer-sized JSON with 201; no authentication,
//   no validation, nothing stored (10 connections, CPU per request after the warm-up, as every row
//   of the bench);
// - the SQL of the create: the rows a real create wrote into the sandbox's own schema (its
//   customer, its internal accounts and its webhook event), copied with fresh ids and inserted
//   ten creates to a transaction (the group commit's batch at 10 connections, at most), timed in
//   process. The deferred list counts are left out.
//
// Their sum is a lower bound for a create here: authentication, validation, ids, the answer,
// the request log and the group commit come on top. The bench's create targets (0.20 ms, 0.30
// ms) were set when this machine ran everything about three times faster (bench/BASELINE-26.md).
//
//   npm run build && node bench/floor.mjs
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, importSource, loadWithCpu, machineReference, printRows, spawnReady, startCli, stop } from './run.mjs';
import { customerBody } from './scenarios/10-customers.mjs';

if (process.argv[2] === '--stateless-server') {
  // The stateless server of the first part, in a process of its own (its CPU is what is measured).
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const bodyOf = (incoming) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      incoming.on('data', (chunk) => chunks.push(chunk));
      incoming.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      incoming.on('error', reject);
    });
  let n = 0;
  const app = new Hono();
  app.post('/floor/customers', async (c) => {
    const body = await bodyOf(c.env.incoming);
    n += 1;
    const now = new Date().toISOString();
    const answer = { id: `Customer:${String(n).padStart(12, '0')}`, ...body, kycStatus: 'APPROVED', currencies: ['USD'], umaAddress: `$${n}@sandbox.uma.money`, createdAt: now, updatedAt: now, isDeleted: false };
    return c.body(JSON.stringify(answer), 201, { 'content-type': 'application/json' });
  });
  serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`stateless server at http://127.0.0.1:${info.port}/floor`));
} else {
  await main();
}

async function stateless() {
  const { child, baseUrl } = await spawnReady([fileURLToPath(import.meta.url), '--stateless-server'], /stateless server at (http:\/\/\S+)/, 'stateless server');
  try {
    const r = await loadWithCpu(child.pid)({
      url: baseUrl,
      connections: 10,
      requests: [{ method: 'POST', path: '/floor/customers', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: JSON.stringify(customerBody()) }) }],
    });
    if (r.non2xx || r.errors) throw new Error(`stateless server: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return r.cpuMs;
  } finally {
    await stop(child);
  }
}

/** The rows of one real create of each kind, read from a sandbox's database file. */
async function realRows(dir) {
  const file = join(dir, 'rows.db');
  const { child, baseUrl } = await startCli(['--port', '0', '--db', file, '--quiet']);
  let one, all;
  try {
    one = await api(baseUrl, 'POST', '/customers', customerBody(['USD']));
    all = await api(baseUrl, 'POST', '/customers', customerBody());
  } finally {
    await stop(child);
  }
  const db = new Database(file, { readonly: true });
  const of = (id) => ({
    customer: db.prepare('SELECT * FROM customers WHERE id = ?').get(id),
    // An internal account's owner is the customer id's 16 bytes (src/resources/internal-accounts).
    accounts: db.prepare('SELECT * FROM internal_accounts WHERE customer_id = ? ORDER BY rid').all(Buffer.from(id.slice(id.indexOf(':') + 1).replaceAll('-', ''), 'hex')),
    events: db.prepare('SELECT * FROM events WHERE resource_id = ? ORDER BY seq').all(id),
  });
  const rows = { one: of(one.id), all: of(all.id) };
  db.close();
  return { file, rows };
}

/**
 * CPU per create of inserting copies of `rows` (fresh, ascending ids) into a copy of the database,
 * opened as the sandbox opens its own (`openDatabase`).
 */
function sqlOf(openDatabase, file, rows) {
  const db = openDatabase(file);
  // Positional parameters from prepared arrays: as little JavaScript per row as can be.
  const insert = (table, row) => {
    const columns = Object.keys(row);
    const statement = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    return { statement, values: Object.values(row), at: (column) => columns.indexOf(column) };
  };
  // Without their integer keys, which SQLite gives each copy.
  const accounts = rows.accounts.map(({ rid: _rid, ...account }) => insert('internal_accounts', account));
  const events = rows.events.map(({ seq: _seq, ...event }) => insert('events', event));
  const customer = insert('customers', rows.customer);
  // A copy's ids: the real one's with its last twelve hex digits (or six bytes) replaced by a counter.
  const text = (id, n) => `${id.slice(0, -12)}${n.toString(16).padStart(12, '0')}`;
  const bytes = (id, n) => {
    const copy = Buffer.from(id);
    copy.writeUIntBE(n, copy.length - 6, 6);
    return copy;
  };
  let n = 0;
  const batch = db.transaction((count) => {
    for (let i = 0; i < count; i += 1) {
      n += 1;
      const id = text(rows.customer.id, n);
      const c = customer.values;
      c[customer.at('id')] = id;
      c[customer.at('platform_customer_id')] = `bench-${n}`;
      c[customer.at('uma_address')] = `$${n.toString(36).padStart(12, '0')}@sandbox.uma.money`;
      customer.statement.run(c);
      const owner = bytes(rows.accounts[0].customer_id, n);
      accounts.forEach((a, k) => {
        a.values[a.at('id')] = bytes(rows.accounts[k].id, n);
        a.values[a.at('customer_id')] = owner;
        a.statement.run(a.values);
      });
      events.forEach((e, k) => {
        e.values[e.at('id')] = text(rows.events[k].id, n);
        e.values[e.at('resource_id')] = id;
        e.statement.run(e.values);
      });
    }
  });
  const creates = 20_000;
  const measures = [];
  batch(1_000); // warm-up
  for (let round = 0; round < 5; round += 1) {
    const before = process.cpuUsage();
    for (let i = 0; i < creates / 10; i += 1) batch(10);
    const used = process.cpuUsage(before);
    measures.push((used.user + used.system) / 1000 / creates);
  }
  db.close();
  return measures.sort((a, b) => a - b)[2];
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bench-floor-'));
  const rows = [...(await machineReference())];
  try {
    const server = await stateless();
    rows.push({ name: 'stateless POST /customers (parse, answer, store nothing) CPU per request', value: server, unit: 'ms', precision: 3 });
    const real = await realRows(dir);
    const { openDatabase } = await importSource('src/store/db.ts');
    for (const [kind, label, target] of [['one', `${real.rows.one.accounts.length} account`, 0.2], ['all', `${real.rows.all.accounts.length} accounts`, 0.3]]) {
      const copy = join(dir, `${kind}.db`);
      const source = new Database(real.file, { readonly: true });
      await source.backup(copy);
      source.close();
      const sql = sqlOf(openDatabase, copy, real.rows[kind]);
      rows.push({ name: `SQL of a create (${label}: its customer, accounts and event rows)`, value: sql, unit: 'ms', precision: 3 });
      // A measure, not a target of its own: the bench's target for the create is beside it.
      rows.push({ name: `floor of POST /customers (${label}): the two above (bench target ${target.toFixed(2)} ms)`, value: server + sql, unit: 'ms', precision: 3 });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printRows(rows);
}
