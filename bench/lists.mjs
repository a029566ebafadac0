#!/usr/bin/env node
// Lists at scale: `GET /customers?limit=20`, the `platformCustomerId` filter, a deep cursor page
// and get-by-id at each customer count, and `GET /transactions?limit=20` at each transaction
// count, 10 connections, each size in a fresh sandbox with a file database seeded through
// `POST /_sandbox/seed` (the services' own create and fund, many rows per transaction). Each read
// also reports the sandbox's CPU time per request (Linux, from /proc), steadier than throughput on a
// shared machine.
//
//   npm run build && node bench/lists.mjs [--sizes 1000,100000,1000000] [--transactions 1000,1000000] [--seconds 5]
//
// In `npm run bench` (bench/scenarios/50-lists.mjs) the sizes come from BENCH_LIST_SIZES and
// BENCH_LIST_TRANSACTIONS (same comma lists).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, load, printRows, startCli, stop } from './run.mjs';

export const DEFAULT_SIZES = [1_000, 100_000, 1_000_000];
export const DEFAULT_TRANSACTIONS = [1_000, 1_000_000];
const SEED_CHUNK = 100_000;
const TARGET_RPS = 3000;
const TARGET_P99 = 10;
const MAX_DROP = 0.2;
const WARM_UP_SECONDS = 1;

/** The cursor the sandbox issues for a page ending at `id` (bench-only knowledge of src/core/pagination.ts). */
const cursorAfter = (id) => Buffer.from(JSON.stringify({ k: id }), 'utf8').toString('base64url');

async function seedInChunks(baseUrl, field, total) {
  const origin = new URL(baseUrl).origin;
  const prefixes = [];
  const started = performance.now();
  for (let done = 0; done < total; done += SEED_CHUNK) {
    const r = await api(origin, 'POST', '/_sandbox/seed', { [field]: Math.min(SEED_CHUNK, total - done) });
    prefixes.push(r.platformCustomerIdPrefix);
  }
  // Each call numbers its customers from 0 under its own prefix.
  const pcidOf = (n) => `${prefixes[Math.floor(n / SEED_CHUNK)]}${n % SEED_CHUNK}`;
  return { pcidOf, seconds: (performance.now() - started) / 1000 };
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
/** USER_HZ: 100 on every Linux the benchmark runs on. */
const CLOCK_TICKS = 100;

/**
 * One load; with the sandbox's pid, also its CPU time per request (us): on a machine shared with
 * the load generator and other work, a steadier measure of a change than throughput.
 */
async function measure(url, seconds, pid) {
  // A second of the same load first: the figures are the steady state, not the JIT warming up on a fresh sandbox.
  await load({ url, connections: 10, duration: WARM_UP_SECONDS });
  const before = cpuMs(pid);
  const r = await load({ url, connections: 10, duration: seconds });
  const after = cpuMs(pid);
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  // Requests served: the mean rate over the load's seconds.
  const served = r.rps * seconds;
  return { ...r, cpuUs: before === undefined || after === undefined || !served ? undefined : ((after - before) * 1000) / served };
}

/** One sandbox with `size` customers: the four reads. */
async function customersAt(size, seconds, dir) {
  const { child, baseUrl } = await startCli(['--port', '0', '--db', join(dir, `customers-${size}.db`), '--quiet']);
  try {
    const seeded = await seedInChunks(baseUrl, 'customers', size);
    const middle = Math.floor(size / 2);
    const pcid = seeded.pcidOf(middle);
    const found = await api(baseUrl, 'GET', `/customers?platformCustomerId=${encodeURIComponent(pcid)}`);
    if (found.data.length !== 1 || found.totalCount !== 1) throw new Error(`seeded customer ${pcid} not found`);
    const id = found.data[0].id;
    const first = await api(baseUrl, 'GET', '/customers?limit=20');
    if (first.totalCount !== size) throw new Error(`totalCount ${first.totalCount}, expected ${size}`);
    return {
      seedSeconds: seeded.seconds,
      list: await measure(`${baseUrl}/customers?limit=20`, seconds, child.pid),
      filtered: await measure(`${baseUrl}/customers?platformCustomerId=${encodeURIComponent(pcid)}`, seconds, child.pid),
      deep: await measure(`${baseUrl}/customers?limit=20&cursor=${cursorAfter(id)}`, seconds, child.pid),
      byId: await measure(`${baseUrl}/customers/${encodeURIComponent(id)}`, seconds, child.pid),
    };
  } finally {
    await stop(child);
  }
}

/** One sandbox with `size` transactions: the first page, newest first. */
async function transactionsAt(size, seconds, dir) {
  const { child, baseUrl } = await startCli(['--port', '0', '--db', join(dir, `transactions-${size}.db`), '--quiet']);
  try {
    const seeded = await seedInChunks(baseUrl, 'transactions', size);
    const first = await api(baseUrl, 'GET', '/transactions?limit=20');
    if (first.totalCount !== size) throw new Error(`totalCount ${first.totalCount}, expected ${size}`);
    return { seedSeconds: seeded.seconds, list: await measure(`${baseUrl}/transactions?limit=20`, seconds, child.pid) };
  } finally {
    await stop(child);
  }
}

const fmt = (n) => n.toLocaleString('en-US');

/**
 * Runs the scenario and returns result rows ({ name, value, unit, target, ok }): throughput and
 * p99 of each read at each size; at sizes above the smallest, `GET /customers?limit=20`, the
 * filter and `GET /transactions` carry the targets (>= 3,000 req/s, p99 <= 10 ms, within 20 %
 * of the smallest size).
 */
export async function benchLists({ sizes = DEFAULT_SIZES, transactions = DEFAULT_TRANSACTIONS, seconds = 5 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bench-lists-'));
  const rows = [];
  const targeted = (name, r, base, targetedSize) => {
    const within = base ? r.rps >= base.rps * (1 - MAX_DROP) : true;
    rows.push({ name: `${name} throughput`, value: r.rps, unit: 'req/s', target: targetedSize ? `>= ${TARGET_RPS} req/s${base ? `, >= 80 % of ${fmt(Math.round(base.rps))}` : ''}` : '', ok: !targetedSize || (r.rps >= TARGET_RPS && within) });
    rows.push({ name: `${name} p99`, value: r.p99, unit: 'ms', target: targetedSize ? `<= ${TARGET_P99} ms` : '', ok: !targetedSize || r.p99 <= TARGET_P99 });
    if (r.cpuUs !== undefined) rows.push({ name: `${name} server CPU per request`, value: r.cpuUs, unit: 'us', target: '', ok: true });
  };
  try {
    let base;
    for (const size of sizes) {
      const r = await customersAt(size, seconds, dir);
      const at = `at ${fmt(size)} customers`;
      rows.push({ name: `seed ${fmt(size)} customers (POST /_sandbox/seed)`, value: r.seedSeconds, unit: 's', target: '', ok: true });
      targeted(`GET /customers?limit=20 ${at}`, r.list, base?.list, true);
      targeted(`GET /customers?platformCustomerId= ${at}`, r.filtered, base?.filtered, true);
      targeted(`GET /customers deep cursor page ${at}`, r.deep, undefined, false);
      targeted(`GET /customers/{id} ${at}`, r.byId, undefined, false);
      base ??= r;
    }
    let txBase;
    for (const size of transactions) {
      const r = await transactionsAt(size, seconds, dir);
      rows.push({ name: `seed ${fmt(size)} transactions (POST /_sandbox/seed)`, value: r.seedSeconds, unit: 's', target: '', ok: true });
      targeted(`GET /transactions?limit=20 at ${fmt(size)} transactions`, r.list, txBase?.list, true);
      txBase ??= r;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** `1000,100000` -> [1000, 100000]. */
export const sizesOf = (text, fallback) => (text ? text.split(',').map((s) => Number(s.replaceAll('_', ''))).filter((n) => Number.isInteger(n) && n > 0) : fallback);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const seconds = Number(arg('seconds') ?? process.env.BENCH_SECONDS ?? 5);
  const rows = await benchLists({ sizes: sizesOf(arg('sizes'), DEFAULT_SIZES), transactions: sizesOf(arg('transactions'), DEFAULT_TRANSACTIONS), seconds });
  console.log(`\nservice-sandbox lists benchmark (${seconds}s per load, 10 connections, file database, ${process.version})\n`);
  printRows(rows);
}
