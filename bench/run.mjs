#!/usr/bin/env node
// The benchmark (`npm run bench`): not a test. Measures the CLI's cold start, throughput and
// latency against a running sandbox with a file database, and idle memory, then prints a table
// with each figure next to its target. Every load goes to 127.0.0.1 only and is bounded in time.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/service-sandbox.js', import.meta.url));
const READY = /service-sandbox ready at (http:\/\/[^\s]+)/;
const CLIENT = 'sandbox-client-id:sandbox-client-secret';
export const AUTH = `Basic ${Buffer.from(CLIENT).toString('base64')}`;
const seconds = Number(process.env.BENCH_SECONDS ?? 5);

/** Starts node with `args`; resolves with the child, the URL its ready line names (`ready`'s group) and the ms to it. */
export function spawnReady(args, ready, what) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = ready.exec(out);
      if (match) resolve({ child, baseUrl: match[1], readyMs: performance.now() - started });
    });
    child.on('exit', (code) => reject(new Error(`${what} exited ${code} before ready`)));
  });
}

/** Starts the CLI; resolves with the child, base URL and time to the ready line in ms. */
export const startCli = (args) => spawnReady([bin, ...args], READY, 'sandbox');

export function stop(child) {
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

/** Runs autocannon against one request shape. */
export async function load({ url, connections, method = 'GET', body, headers = {}, duration = seconds, requests }) {
  const result = await autocannon({
    url,
    connections,
    duration,
    method,
    body,
    headers: { Authorization: AUTH, 'Content-Type': 'application/json', ...headers },
    requests,
  });
  return { rps: result.requests.average, total: result.requests.total, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux; USER_HZ 100); undefined elsewhere. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/**
 * Seconds of the same load, untimed, before a write scenario is measured. A fresh sandbox is not
 * in its steady state after one: measured a second at a time at 10 connections (one-account
 * creates), its first second cost 0.43 ms of CPU a create, its second 0.22-0.25 ms, of which
 * 0.03-0.04 ms on V8's compiler threads, then 0.18-0.19 ms from the third on, with those threads
 * idle (bench/BASELINE-26.md, part 11). `BENCH_WARM_UP_SECONDS` sets another.
 */
export const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 3);

/**
 * `load` that also reports the sandbox's CPU time per request in ms (`cpuMs`), read from /proc
 * for the sandbox process `pid` around the load: steadier than throughput on a shared machine.
 * `WARM_UP_SECONDS` of the same load first, so the figures are the steady state, not the JIT
 * warming up.
 */
export function loadWithCpu(pid) {
  return async (options) => {
    await load({ ...options, duration: WARM_UP_SECONDS });
    const before = cpuMs(pid);
    const r = await load(options);
    const after = cpuMs(pid);
    return { ...r, cpuMs: before === undefined || after === undefined || !r.total ? undefined : (after - before) / r.total };
  };
}

/**
 * What this machine gives a do-nothing server: a bare `node:http` server answering a small JSON
 * body, under the same load and measure as the scenarios (10 connections, CPU per request after
 * the warm-up). The machine's speed moves every row of the bench from one spell to another (2-3x
 * during issue 26, bench/BASELINE-26.md); this row says which spell a run was taken in.
 */
export async function machineReference() {
  const source = `const s = require('node:http').createServer((q, r) => { r.writeHead(200, { 'content-type': 'application/json' }); r.end('{"ok":true}'); });
s.listen(0, '127.0.0.1', () => console.log('reference server at http://127.0.0.1:' + s.address().port));`;
  const { child, baseUrl } = await spawnReady(['-e', source], /reference server at (http:\/\/\S+)/, 'reference server');
  try {
    const r = await loadWithCpu(child.pid)({ url: baseUrl, connections: 10 });
    return [
      { name: 'reference: bare node:http server, 10 connections', value: r.rps, unit: 'req/s', target: '', ok: true },
      { ...cpuRow('reference: bare node:http server', r), name: 'reference: bare node:http server CPU per request' },
    ];
  } finally {
    await stop(child);
  }
}

/**
 * Prints rows as the bench's table: name, value with its unit (`precision` decimals; else one
 * under 10, none from 10), and the target with ok or MISSED. A missed target sets the exit code.
 */
export function printRows(rows) {
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) {
    const value = `${r.value.toFixed(r.precision ?? (r.value < 10 ? 1 : 0))} ${r.unit}`;
    console.log(`${r.name.padEnd(width)}  ${value.padStart(16)}  ${r.target ?? ''}${r.target ? (r.ok ? '  ok' : '  MISSED') : ''}`);
  }
  if (rows.some((r) => r.target && !r.ok)) process.exitCode = 1;
}

/** The CPU-per-request row of a write scenario (a request of a pair counts once). */
export const cpuRow = (name, r) => ({ name: `${name} sandbox CPU per request`, value: r.cpuMs ?? NaN, unit: 'ms', target: '', ok: true, precision: 3 });

/**
 * Imports modules of the sources (`src/...ts`) for a benchmark's client side: the build ships one
 * bundle (dist/cli.js, dist/index.js), so internal modules are bundled here on demand with esbuild,
 * all the given paths into one module (one copy of what they share). `external` packages stay
 * imports (react and ink must be the copies ink-testing-library uses).
 */
export async function importSource(paths, { external = [] } = {}) {
  const { build } = await import('esbuild');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const list = Array.isArray(paths) ? paths : [paths];
  // Written inside the project, so the bundle's external imports resolve from its node_modules.
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const out = join(mkdtempSync(join(cache, 'service-sandbox-bench-')), 'module.mjs');
  await build({
    absWorkingDir: root,
    stdin: { contents: list.map((path) => `export * from './${path}';`).join('\n'), resolveDir: root, loader: 'ts' },
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    jsx: 'automatic',
    external: ['better-sqlite3', 'react-devtools-core', ...external],
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  return import(out);
}

/** One JSON call to a sandbox under test (scenario setup); throws on a non-2xx answer. */
export async function api(baseUrl, method, path, body) {
  const res = await fetch(`${baseUrl}${path}`, { method, headers: { Authorization: AUTH, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const rows = [];
const row = (name, value, unit, target, ok, precision) => rows.push({ name, value, unit, target, ok, precision });

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bench-'));
  try {
    // Cold start: five fresh processes, median time from spawn to the ready line (npm excluded).
    const starts = [];
    for (let i = 0; i < 5; i += 1) {
      const { child, readyMs } = await startCli(['--port', '0', '--memory', '--quiet']);
      starts.push(readyMs);
      await stop(child);
    }
    row('cold start to ready line (median of 5)', median(starts), 'ms', '<= 400 ms', median(starts) <= 400);
    for (const r of await machineReference()) row(r.name, r.value, r.unit, r.target, r.ok, r.precision);

    const { child, baseUrl } = await startCli(['--port', '0', '--db', join(dir, 'bench.db'), '--quiet']);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idle = rssMb(child.pid);
    row('idle RSS after start', idle, 'MB', '<= 100 MB', idle <= 100);

    for (const connections of [10, 50]) {
      const r = await load({ url: `${baseUrl}/config`, connections });
      if (r.non2xx || r.errors) throw new Error(`GET /config: ${r.non2xx} non-2xx, ${r.errors} errors`);
      row(`GET /config throughput, ${connections} connections`, r.rps, 'req/s', connections === 50 ? '>= 6000 req/s' : '', connections === 50 ? r.rps >= 6000 : true);
      row(`GET /config p99, ${connections} connections`, r.p99, 'ms', connections === 50 ? '<= 20 ms' : '', connections === 50 ? r.p99 <= 20 : true);
    }

    await stop(child);

    // Each scenario gets a fresh sandbox with its own file database, so one's data and WAL do not weigh on the next.
    const scenarios = await loadScenarios();
    for (const [index, scenario] of scenarios.entries()) {
      const fresh = await startCli(['--port', '0', '--db', join(dir, `scenario-${index}.db`), '--quiet']);
      try {
        for (const result of await scenario.run({ baseUrl: fresh.baseUrl, load: loadWithCpu(fresh.child.pid), seconds })) row(result.name, result.value, result.unit, result.target, result.ok, result.precision);
      } finally {
        await stop(fresh.child);
      }
    }
    for (const r of await (await import('./tui.mjs')).benchTui()) row(r.name, r.value, r.unit, r.target, r.ok);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  console.log(`\nservice-sandbox benchmark (${seconds}s per load, file database, ${process.version})\n`);
  console.log(`${'measure'.padEnd(Math.max(...rows.map((r) => r.name.length)))}  ${'result'.padStart(16)}  target`);
  printRows(rows);
}

/** Optional scenario modules in bench/scenarios/*.mjs, each exporting `run({ baseUrl, load, seconds })`. */
async function loadScenarios() {
  const { readdirSync } = await import('node:fs');
  const folder = fileURLToPath(new URL('./scenarios/', import.meta.url));
  let files = [];
  try {
    // BENCH_ONLY=wallet,cards runs only the scenarios whose file names contain one of the words.
    const only = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
    files = readdirSync(folder)
      .filter((f) => f.endsWith('.mjs') && (only.length === 0 || only.some((word) => f.includes(word))))
      .sort();
  } catch {
    return [];
  }
  return Promise.all(files.map((f) => import(join(folder, f))));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`bench: ${error.message}`);
    process.exitCode = 1;
  });
}
