// Terminal UI, fixtures and snapshots (issue 13): time from `start --fixtures fixtures/demo.json`
// to the ready line, `import` of a 10,000-customer snapshot, and the UI's first render over
// 100,000 customers. Wired into `npm run bench` by one line of bench/run.mjs; alone:
// `npm run build && node bench/tui.mjs`.
import { createElement } from 'react';
import { render } from 'ink-testing-library';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../dist/index.js';
import { importSource, startCli, stop } from './run.mjs';

const { App, SandboxClient, views } = await importSource(['src/tui/app.tsx', 'src/tui/client.ts', 'src/tui/views/index.ts'], {
  external: ['react', 'react/jsx-runtime', 'ink'],
});
const demo = fileURLToPath(new URL('../fixtures/demo.json', import.meta.url));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const authOf = (s) => `Basic ${Buffer.from(`${s.clientId}:${s.clientSecret}`).toString('base64')}`;

/** A time-ordered UUIDv7-shaped id for row `i` (millisecond `ms + i`). */
function uuidAt(ms, i) {
  const t = (ms + i).toString(16).padStart(12, '0');
  const n = i.toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7000-8000-${n}`;
}

/**
 * A snapshot of `count` customers (one USD account each), made by exporting one real customer
 * and cloning its rows with fresh ids: the shape is exactly what `export` writes.
 */
export async function customerSnapshot(count) {
  const sandbox = await startSandbox();
  try {
    const auth = authOf(sandbox);
    const post = (path, body) => fetch(`${sandbox.baseUrl}${path}`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    await post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Template Person', birthDate: '1990-01-15', nationality: 'US', currencies: ['USD'] });
    const snapshot = await (await fetch(`${sandbox.origin}/_sandbox/snapshot`, { headers: { Authorization: auth } })).json();
    const customers = snapshot.tables.customers;
    const accounts = snapshot.tables.internal_accounts;
    const col = (table, name) => table.columns.indexOf(name);
    const [template] = customers.rows;
    const templateAccount = accounts.rows.find((row) => row[col(accounts, 'customer_id')] === template[col(customers, 'id')]);
    const platformAccounts = accounts.rows.filter((row) => row[col(accounts, 'customer_id')] === null);
    const base = Date.parse(template[col(customers, 'created_at')]) - count - 1000;
    customers.rows = [];
    accounts.rows = [...platformAccounts];
    for (let i = 0; i < count; i += 1) {
      const id = `Customer:${uuidAt(base, i)}`;
      const row = [...template];
      row[col(customers, 'id')] = id;
      row[col(customers, 'platform_customer_id')] = `bench-${i}`;
      row[col(customers, 'uma_address')] = `$bench${i}@sandbox.uma.money`;
      row[col(customers, 'profile')] = String(row[col(customers, 'profile')]).replace('Template Person', `Bench Person${i}`);
      customers.rows.push(row);
      const account = [...templateAccount];
      account[col(accounts, 'id')] = `InternalAccount:${uuidAt(base, i)}`;
      account[col(accounts, 'customer_id')] = id;
      accounts.rows.push(account);
    }
    snapshot.tables.events = { columns: snapshot.tables.events.columns, rows: [] };
    return JSON.stringify(snapshot);
  } finally {
    await sandbox.close();
  }
}

/** Runs the three measures; returns rows for bench/run.mjs's table. */
export async function benchTui() {
  const rows = [];
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bench-tui-'));
  try {
    const starts = [];
    for (let i = 0; i < 3; i += 1) {
      const { child, readyMs } = await startCli(['--port', '0', '--memory', '--quiet', '--fixtures', demo]);
      starts.push(readyMs);
      await stop(child);
    }
    const start = median(starts);
    rows.push({ name: 'start --fixtures fixtures/demo.json to ready line (median of 3)', value: start, unit: 'ms', target: '<= 800 ms', ok: start <= 800 });

    const tenThousand = await customerSnapshot(10_000);
    const { child, baseUrl } = await startCli(['--port', '0', '--db', join(dir, 'import.db'), '--quiet']);
    try {
      const origin = new URL(baseUrl).origin;
      const started = performance.now();
      const res = await fetch(`${origin}/_sandbox/snapshot`, { method: 'POST', headers: { Authorization: authOf({ clientId: 'sandbox-client-id', clientSecret: 'sandbox-client-secret' }), 'Content-Type': 'application/json' }, body: tenThousand });
      if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
      const ms = performance.now() - started;
      rows.push({ name: `import of a 10,000-customer snapshot (${(tenThousand.length / 1e6).toFixed(1)} MB)`, value: ms, unit: 'ms', target: '<= 2000 ms', ok: ms <= 2000 });
    } finally {
      await stop(child);
    }

    const hundredThousand = await customerSnapshot(100_000);
    const sandbox = await startSandbox({ db: join(dir, 'ui.db') });
    try {
      const auth = authOf(sandbox);
      const res = await fetch(`${sandbox.origin}/_sandbox/snapshot`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: hundredThousand });
      if (!res.ok) throw new Error(`import: ${res.status}`);
      const client = new SandboxClient({ url: sandbox.origin, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
      const started = performance.now();
      const ui = render(createElement(App, { client, views, color: false }));
      while (!(ui.lastFrame() ?? '').includes('Customers 1/100000')) await new Promise((resolve) => setTimeout(resolve, 2));
      const firstRender = performance.now() - started;
      // Scrolling: 200 key presses of j, then a page down, each to its frame.
      const scrollStarted = performance.now();
      for (let i = 0; i < 200; i += 1) {
        ui.stdin.write('j');
        while (!(ui.lastFrame() ?? '').includes(`Customers ${i + 2}/100000`)) await new Promise((resolve) => setImmediate(resolve));
      }
      const perKey = (performance.now() - scrollStarted) / 200;
      // A write by another client, to the screen: fund the platform's USD account, watch the
      // (newest first) transactions view until the amount shows.
      ui.stdin.write('4');
      while (!(ui.lastFrame() ?? '').includes('RAIL')) await new Promise((resolve) => setTimeout(resolve, 2));
      const platformAccounts = await (await fetch(`${sandbox.baseUrl}/platform/internal-accounts`, { headers: { Authorization: auth } })).json();
      const usd = platformAccounts.data.find((a) => a.balance.currency.code === 'USD');
      const latencies = [];
      for (let i = 1; i <= 5; i += 1) {
        const amount = 1000 + i;
        const started = performance.now();
        await fetch(`${sandbox.baseUrl}/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ amount }) });
        const text = `${(amount / 100).toFixed(2)} USD`;
        while (!(ui.lastFrame() ?? '').includes(text)) await new Promise((resolve) => setTimeout(resolve, 1));
        latencies.push(performance.now() - started);
      }
      ui.unmount();
      rows.push({ name: 'UI first render with 100,000 customers', value: firstRender, unit: 'ms', target: '< 1000 ms', ok: firstRender < 1000 });
      // ink draws at most 30 frames a second: about 33 ms is the floor.
      rows.push({ name: 'UI scrolling over 100,000 customers, per key', value: perKey, unit: 'ms', target: '<= 50 ms', ok: perKey <= 50 });
      rows.push({ name: 'UI: a write by another client on screen (median of 5)', value: median(latencies), unit: 'ms', target: '<= 200 ms', ok: median(latencies) <= 200 });
    } finally {
      await sandbox.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await benchTui()) console.log(`${r.name.padEnd(64)} ${r.value.toFixed(0).padStart(8)} ${r.unit}  ${r.target}  ${r.ok ? 'ok' : 'MISSED'}`);
  process.exit(0);
}
