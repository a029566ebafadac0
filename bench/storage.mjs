#!/usr/bin/env node
// Storage per customer: builds N customers with the default currencies (eleven internal accounts
// each) through the customers service itself, in batches of 5,000 per transaction (fast; no
// HTTP), in a fresh file database, then prints the file size, bytes per customer and each
// table's and index's share (SQLite's dbstat, when compiled in). Issue 26: 100,000 customers in
// at most 400 MB.
//
//   node bench/storage.mjs [--customers 100000]
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importSource } from './run.mjs';

const BATCH = 5_000;
const TARGET_BYTES = 400 * 1024 * 1024;

/** Builds `customers` default customers in a fresh database; returns the size figures. */
export async function benchStorage({ customers = 100_000 } = {}) {
  const { startSandbox, createCustomer, platformService } = await importSource(['src/index.ts', 'src/resources/customers/index.ts', 'src/tenancy/index.ts']);
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bench-storage-'));
  const file = join(dir, 'storage.db');
  try {
    const sandbox = await startSandbox({ db: file });
    const ctx = sandbox.context;
    const platform = platformService(ctx).list()[0];
    const started = performance.now();
    for (let start = 0; start < customers; start += BATCH) {
      // Each batch a transaction of its own, as the seed's (src/control/seed.ts): never a savepoint in the group the last one left open.
      ctx.commitNow();
      ctx.tx(() => {
        for (let i = start; i < Math.min(customers, start + BATCH); i += 1) {
          createCustomer(ctx, platform, { customerType: 'INDIVIDUAL', platformCustomerId: `storage-${i}`, fullName: `Storage Customer ${i}`, birthDate: '1990-01-15', nationality: 'US' });
        }
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    const buildSeconds = (performance.now() - started) / 1000;
    await sandbox.close();
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const accounts = db.prepare('SELECT COUNT(*) FROM internal_accounts').pluck().get();
    let objects = [];
    try {
      objects = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all();
    } catch {
      // dbstat not compiled in: the file size alone.
    }
    db.close();
    const bytes = statSync(file).size;
    return { customers, accounts, bytes, perCustomer: bytes / customers, buildSeconds, objects };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--customers');
  const customers = i > 0 ? Number(process.argv[i + 1]) : 100_000;
  const r = await benchStorage({ customers });
  const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  console.log(`${r.customers.toLocaleString('en-US')} default customers (${r.accounts.toLocaleString('en-US')} internal accounts), built in ${r.buildSeconds.toFixed(1)} s`);
  console.log(`database file ${mb(r.bytes)}, ${Math.round(r.perCustomer).toLocaleString('en-US')} bytes per customer`);
  const scaled = (r.bytes * 100_000) / r.customers;
  console.log(`at 100,000 customers: ${mb(scaled)} (target <= 400 MB: ${scaled <= TARGET_BYTES ? 'ok' : 'MISSED'})`);
  for (const o of r.objects.slice(0, 25)) console.log(`  ${o.name.padEnd(44)} ${mb(o.bytes).padStart(10)}  ${Math.round(o.bytes / r.customers).toString().padStart(6)} B/customer`);
}
