#!/usr/bin/env node
// The write scenarios of `npm run bench` alone (customers, money, quotes, webhooks, agents, cards,
// SCA), each in a fresh sandbox with a file database, with the sandbox's CPU per request beside
// the throughput: the quick loop for work on write paths (issue 26).
//
//   npm run build && BENCH_SECONDS=3 node bench/writes.mjs [customers,money,...]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWithCpu, machineReference, printRows, startCli, stop } from './run.mjs';

const WRITES = ['10-customers', '20-money', '30-quotes', '40-webhooks', '50-agents', '50-cards', '50-sca'];
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const only = (process.argv[2] ?? '').split(',').filter(Boolean);
const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bench-writes-'));
// First what a bare node server costs here: the machine's spell (see machineReference).
const rows = [...(await machineReference())];
try {
  for (const name of WRITES.filter((file) => only.length === 0 || only.some((word) => file.includes(word)))) {
    const scenario = await import(fileURLToPath(new URL(`./scenarios/${name}.mjs`, import.meta.url)));
    const fresh = await startCli(['--port', '0', '--db', join(dir, `${name}.db`), '--quiet']);
    try {
      rows.push(...(await scenario.run({ baseUrl: fresh.baseUrl, load: loadWithCpu(fresh.child.pid), seconds })));
    } finally {
      await stop(fresh.child);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
printRows(rows);
