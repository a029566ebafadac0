#!/usr/bin/env node
// What recording integration coverage costs: `GET /config` and `POST /customers` (one account)
// at 10 connections against two sandboxes with file databases, one recording (the default) and
// one with SERVICE_SANDBOX_COVERAGE=off, a fresh pair each round, started and measured in
// alternation (off then on, then on then off, ...): a shared machine's drift, and whatever favours
// the first or second process started (about 4 % of CPU per request in an A/A run, both off),
// fall on both. Each load reports throughput and the
// sandbox's CPU time per request (Linux, from /proc), steadier than throughput on a shared
// machine. The figure is the median of the rounds; the target is a cost under 5 % of throughput.
// Then the hook itself, in this process: what one request's recording costs (the server's
// operation count, and a rule's), in nanoseconds, next to the CPU a request takes.
//
//   npm run build && node bench/coverage.mjs [--rounds 3] [--seconds 5]
//
// In `npm run bench` it runs as bench/scenarios/60-coverage.mjs (BENCH_ONLY=coverage for it alone).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importSource, load, printRows, startCli, stop } from './run.mjs';

const MAX_COST = 0.05;
const WARM_UP_SECONDS = 1;
/** USER_HZ: 100 on every Linux the benchmark runs on. */
const CLOCK_TICKS = 100;

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux); undefined elsewhere (as bench/lists.mjs). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The counts one request of each shape records: an operation, and for a customer its name rule. */
const countsPerRequest = { 'GET /config': { operations: 1, rules: 0 }, 'POST /customers (1 account)': { operations: 1, rules: 1 } };

const shapes = {
  'GET /config': (baseUrl) => ({ url: `${baseUrl}/config` }),
  'POST /customers (1 account)': (baseUrl) => ({
    url: baseUrl,
    requests: [
      {
        method: 'POST',
        path: `${new URL(baseUrl).pathname}/customers`,
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ customerType: 'INDIVIDUAL', platformCustomerId: `bench-${randomUUID()}`, fullName: 'Bench Customer', birthDate: '1990-01-15', nationality: 'US', currencies: ['USD'] }),
        }),
      },
    ],
  }),
};

async function measure(sandbox, shape, seconds) {
  const options = shape(sandbox.baseUrl);
  await load({ ...options, connections: 10, duration: WARM_UP_SECONDS });
  const before = cpuMs(sandbox.child.pid);
  const r = await load({ ...options, connections: 10, duration: seconds });
  const after = cpuMs(sandbox.child.pid);
  if (r.non2xx || r.errors) throw new Error(`${r.non2xx} non-2xx, ${r.errors} errors`);
  const served = r.rps * seconds;
  return { rps: r.rps, cpuUs: before === undefined || after === undefined || !served ? undefined : ((after - before) * 1000) / served };
}

/** Starts a sandbox with recording on or off (the environment is read when the CLI starts). */
async function sandbox(dir, name, recording) {
  const saved = process.env.SERVICE_SANDBOX_COVERAGE;
  if (recording) delete process.env.SERVICE_SANDBOX_COVERAGE;
  else process.env.SERVICE_SANDBOX_COVERAGE = 'off';
  try {
    return await startCli(['--port', '0', '--db', join(dir, `${name}.db`), '--quiet']);
  } finally {
    if (saved === undefined) delete process.env.SERVICE_SANDBOX_COVERAGE;
    else process.env.SERVICE_SANDBOX_COVERAGE = saved;
  }
}

/** The rows: per request shape, throughput and CPU per request with and without recording, and the cost. */
export async function benchCoverage({ rounds = 3, seconds = 5 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bench-coverage-'));
  const hook = await hookCost();
  const rows = [];
  try {
    for (const [name, shape] of Object.entries(shapes)) {
      const runs = { off: [], on: [] };
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
        const pair = {};
        for (const side of order) pair[side] = await sandbox(dir, `${name.split(' ')[0]}-${round}-${side}`, side === 'on');
        try {
          for (const side of order) runs[side].push(await measure(pair[side], shape, seconds));
        } finally {
          await stop(pair.off.child);
          await stop(pair.on.child);
        }
      }
      const rps = { off: median(runs.off.map((r) => r.rps)), on: median(runs.on.map((r) => r.rps)) };
      const cpu = { off: median(runs.off.map((r) => r.cpuUs ?? NaN)), on: median(runs.on.map((r) => r.cpuUs ?? NaN)) };
      const cost = (rps.off - rps.on) / rps.off;
      rows.push(
        { name: `${name}, recording off`, value: rps.off, unit: 'req/s', target: '', ok: true },
        { name: `${name}, recording on`, value: rps.on, unit: 'req/s', target: '', ok: true },
        { name: `${name}, CPU per request off / on`, value: cpu.on, unit: `us (off ${cpu.off.toFixed(0)} us)`, target: '', ok: true },
        { name: `${name}, cost of recording (throughput)`, value: cost * 100, unit: '%', target: `< ${MAX_COST * 100} %`, ok: cost < MAX_COST },
        { name: `${name}, cost of recording (CPU per request)`, value: ((cpu.on - cpu.off) / cpu.off) * 100, unit: '%', target: '', ok: true },
      );
      // The hook's own time against the request's CPU: what no load on a shared machine can resolve.
      const counts = countsPerRequest[name];
      const share = (counts.operations * hook.operationNs + counts.rules * hook.ruleNs) / (cpu.off * 1000);
      const hookNs = counts.operations * hook.operationNs + counts.rules * hook.ruleNs;
      rows.push({ name: `${name}, cost of recording (hook time / request CPU)`, value: share * 100, unit: `% (${hookNs.toFixed(0)} ns of ${cpu.off.toFixed(0)} us)`, target: `< ${MAX_COST * 100} %`, ok: share < MAX_COST });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  rows.push(
    { name: 'coverage hook: one operation count (in process)', value: hook.operationNs, unit: 'ns', target: '', ok: true },
    { name: 'coverage hook: one rule count (in process)', value: hook.ruleNs, unit: 'ns', target: '', ok: true },
  );
  return rows;
}

/**
 * The recording hook alone, in this process over a file database: 1,000,000 operation
 * counts (what the server does after every request) and as many rule counts, each with a file
 * database's dirty marking, timed after a warm-up.
 */
async function hookCost() {
  const { CoverageRecorder } = await importSource('src/store/coverage.ts');
  const Database = (await import('better-sqlite3')).default;
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bench-hook-'));
  const db = new Database(join(dir, 'hook.db'));
  db.exec('CREATE TABLE coverage_counts (platform_id TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (platform_id, kind, key)) WITHOUT ROWID');
  const recorder = new CoverageRecorder(db);
  const platform = 'Platform:01a00000-0000-7000-8000-000000000001';
  const calls = 1_000_000;
  const time = (fn) => {
    for (let i = 0; i < 100_000; i += 1) fn(i);
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i += 1) fn(i);
    return Number(process.hrtime.bigint() - started) / calls;
  };
  const operationNs = time((i) => recorder.recordOperation(platform, 'getPlatformConfig', i % 50 === 0 ? 404 : 200));
  const ruleNs = time(() => recorder.record(platform, 'rule', 'customers.individual-name.other'));
  recorder.flush();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { operationNs, ruleNs };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name) => {
    const at = process.argv.indexOf(`--${name}`);
    return at > 0 ? Number(process.argv[at + 1]) : undefined;
  };
  const rows = await benchCoverage({ rounds: arg('rounds') ?? 3, seconds: arg('seconds') ?? Number(process.env.BENCH_SECONDS ?? 5) });
  printRows(rows.map((r) => ({ precision: 1, ...r })));
}
