// Terminal UI, fixtures and snapshots (issue 13): time from `start --fixtures fixtures/demo.json`
// to the ready line, `import` of a 10,000-customer snapshot, and the UI's first render over
// 100,000 customers. Issue 27: at 1,000,000 customers (made by direct SQL), the UI's search from
// Enter to the customer on screen, G to the last row, and key-to-screen for one j and for 50 j in
// one write. Wired into `npm run bench` by one line of bench/run.mjs; alone:
// `npm run build && node bench/tui.mjs` (`--million` runs only the 1,000,000-customer part).
import { createElement } from 'react';
import { render } from 'ink-testing-library';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../dist/index.js';
import { importSource, startCli, stop } from './run.mjs';

const { App, SandboxClient, views, seedCustomers } = await importSource(['src/tui/app.tsx', 'src/tui/client.ts', 'src/tui/views/index.ts', 'test/helpers/seed-customers.ts'], {
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
    // Internal accounts keep their ids as bytes ({ $base64 } in a snapshot); an import also takes
    // them as text (`InternalAccount:<uuid>`), as an earlier sandbox wrote them.
    const uuidHex = (value) =>
      value !== null && typeof value === 'object' && '$base64' in value ? Buffer.from(value.$base64, 'base64').toString('hex') : typeof value === 'string' ? value.slice(value.indexOf(':') + 1).replaceAll('-', '') : value;
    const templateAccount = accounts.rows.find((row) => uuidHex(row[col(accounts, 'customer_id')]) === uuidHex(template[col(customers, 'id')]));
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

/** Waits (yielding) until the UI's last frame passes `test`; returns ms since `since`. */
async function frameShows(ui, test, since, timeoutMs = 30_000) {
  while (!test(ui.lastFrame() ?? '')) {
    if (performance.now() - since > timeoutMs) throw new Error(`not on screen in ${timeoutMs} ms:\n${ui.lastFrame()}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return performance.now() - since;
}

/**
 * Issue 27 at 1,000,000 customers: search (HTTP, and in the UI from Enter to the row on screen,
 * nothing loading afterwards), G to the real end, and key-to-screen (one j; 50 j in one write).
 */
export async function benchMillion(count = 1_000_000) {
  const rows = [];
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bench-million-'));
  const file = join(dir, 'million.db');
  try {
    await (await startSandbox({ db: file })).close();
    const seeded = seedCustomers(file, count);
    rows.push({ name: `seed ${count.toLocaleString('en-US')} customers by direct SQL (setup, not a target)`, value: seeded.ms, unit: 'ms', target: '-', ok: true });
    const sandbox = await startSandbox({ db: file });
    try {
      const auth = authOf(sandbox);
      const http = [];
      for (let i = 0; i < 9; i += 1) {
        const n = Math.floor((count / 9) * i + 12_345) % count;
        const started = performance.now();
        const res = await fetch(`${sandbox.origin}/_sandbox/search/customers?q=${encodeURIComponent(`Seed Person ${n}`)}&limit=100`, { headers: { Authorization: auth } });
        const body = await res.json();
        if (!body.data.some((c) => c.fullName === `Seed Person ${n}`)) throw new Error(`search missed Seed Person ${n}`);
        http.push(performance.now() - started);
      }
      rows.push({ name: `GET /_sandbox/search/customers at ${count.toLocaleString('en-US')} customers (median of 9)`, value: median(http), unit: 'ms', target: '<= 50 ms', ok: median(http) <= 50 });

      const client = new SandboxClient({ url: sandbox.origin, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });
      const ui = render(createElement(App, { client, views, color: false }));
      const total = count.toLocaleString('en-US');
      const opened = performance.now();
      const first = await frameShows(ui, (f) => f.includes(`Customers 1/${total}`), opened);
      rows.push({ name: `UI first render with ${total} customers`, value: first, unit: 'ms', target: '< 1000 ms', ok: first < 1000 });

      const searches = [];
      for (let i = 0; i < 5; i += 1) {
        const n = Math.floor((count / 5) * i + 777) % count;
        ui.stdin.write('/');
        await frameShows(ui, (f) => f.includes('/ Customers'), performance.now());
        ui.stdin.write(`Seed Person ${n}`);
        await frameShows(ui, (f) => f.includes(`Seed Person ${n}_`), performance.now());
        const started = performance.now();
        ui.stdin.write('\r');
        searches.push(await frameShows(ui, (f) => f.includes(`> Seed Person ${n} `) && f.includes('Customers 1/'), started));
        ui.stdin.write('\u001B');
        await frameShows(ui, (f) => f.includes(`Customers 1/${total}`), performance.now());
      }
      rows.push({ name: `UI search at ${total} customers: Enter to the customer on screen (median of 5)`, value: median(searches), unit: 'ms', target: '<= 200 ms', ok: median(searches) <= 200 });

      const endStarted = performance.now();
      ui.stdin.write('G');
      const toEnd = await frameShows(ui, (f) => f.includes(`Customers ${total}/${total}`) && f.includes('> Seed Person 0 '), endStarted);
      rows.push({ name: `UI G to the last of ${total} customers`, value: toEnd, unit: 'ms', target: '<= 200 ms', ok: toEnd <= 200 });
      ui.stdin.write('g');
      await frameShows(ui, (f) => f.includes(`Customers 1/${total}`), performance.now());

      const keys = [];
      for (let i = 0; i < 100; i += 1) {
        const started = performance.now();
        ui.stdin.write('j');
        keys.push(await frameShows(ui, (f) => f.includes(`Customers ${i + 2}/${total}`), started));
      }
      rows.push({ name: `UI key to screen (j) at ${total} customers (median of 100)`, value: median(keys), unit: 'ms', target: '<= 50 ms', ok: median(keys) <= 50 });
      const burstStarted = performance.now();
      ui.stdin.write('j'.repeat(50));
      const burst = await frameShows(ui, (f) => f.includes(`Customers ${101 + 50}/${total}`), burstStarted);
      rows.push({ name: 'UI 50 j in one write: to the 50th row on screen', value: burst, unit: 'ms', target: '<= 200 ms', ok: burst <= 200 });
      ui.unmount();
    } finally {
      await sandbox.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
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
      while (!(ui.lastFrame() ?? '').includes('Customers 1/100,000')) await new Promise((resolve) => setTimeout(resolve, 2));
      const firstRender = performance.now() - started;
      // Scrolling: 200 key presses of j, then a page down, each to its frame.
      const scrollStarted = performance.now();
      for (let i = 0; i < 200; i += 1) {
        ui.stdin.write('j');
        while (!(ui.lastFrame() ?? '').includes(`Customers ${i + 2}/100,000`)) await new Promise((resolve) => setImmediate(resolve));
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
  rows.push(...(await benchMillion()));
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--million')) {
  for (const r of await benchMillion()) console.log(`${r.name.padEnd(72)} ${r.value.toFixed(0).padStart(8)} ${r.unit}  ${r.target}  ${r.ok ? 'ok' : 'MISSED'}`);
  process.exit(0);
}
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await benchTui()) console.log(`${r.name.padEnd(64)} ${r.value.toFixed(0).padStart(8)} ${r.unit}  ${r.target}  ${r.ok ? 'ok' : 'MISSED'}`);
  process.exit(0);
}
