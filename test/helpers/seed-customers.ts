import Database from 'better-sqlite3';
import { CUSTOMER_COUNTS } from '../../src/resources/customers/repo.js';
import { DeferredCounts } from '../../src/store/deferred-counts.js';

/**
 * Fills a sandbox database file with `count` individual customers of the platform `clientId`
 * by direct SQL, a transaction per 100,000 rows: a million in about half a minute, where the API
 * would take hours. Each is `Seed Person <i>` (email `seed<i>@example.com`, platform customer
 * id `seed-<i>`), APPROVED, with time-ordered ids. Rows go in as a repo would write them but
 * without their stored wire JSON (the service presents such rows itself); the schema's indexes
 * (search keys) take them as any insert, and the platform's customer counts are counted again
 * after them, as after a snapshot import (the repo counts its own creates). The file must not be
 * open in a sandbox.
 */
export function seedCustomers(file: string, count: number, clientId = 'sandbox-client-id'): { platformId: string; ms: number } {
  const started = performance.now();
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    const platform = db.prepare('SELECT id FROM platforms WHERE client_id = ?').get(clientId) as { id: string } | undefined;
    if (!platform) throw new Error(`no platform ${clientId} in ${file}`);
    // One INSERT ... SELECT over a counter per 100,000 rows: SQLite makes the rows itself, about
    // three times faster than a statement run per row from here.
    const insert = db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT CAST(@from AS INTEGER) UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @to),
       r(i, ms, t) AS (SELECT i, CAST(@base AS INTEGER) + i, printf('%012x', CAST(@base AS INTEGER) + i) FROM n)
       INSERT INTO customers (id, platform_id, customer_type, platform_customer_id, uma_address, region, currencies, kyc_status, profile, consent, contact, is_deleted, created_at, updated_at)
       SELECT 'Customer:' || substr(t, 1, 8) || '-' || substr(t, 9, 4) || '-7000-8000-' || printf('%012x', i), @platform, 'INDIVIDUAL',
         'seed-' || i, '$seed' || i || '@sandbox.uma.money', 'US', '["USD"]', 'APPROVED',
         json_object('fullName', 'Seed Person ' || i, 'birthDate', '1990-01-15', 'nationality', 'US', 'email', 'seed' || i || '@example.com'),
         NULL, NULL, 0, at, at
       FROM (SELECT i, t, strftime('%Y-%m-%dT%H:%M:%S', ms / 1000, 'unixepoch') || printf('.%03dZ', ms % 1000) AS at FROM r)`,
    );
    // Ids are UUIDv7-shaped and in creation order, a millisecond apart, ending before now.
    const base = Date.now() - count - 60_000;
    const batch = db.transaction((from: number, to: number) => insert.run({ from, to, base, platform: platform.id }));
    for (let from = 0; from < count; from += 100_000) batch(from, Math.min(count, from + 100_000));
    db.transaction(() => new DeferredCounts(db).recountPlatform(CUSTOMER_COUNTS, platform.id))();
    db.pragma('wal_checkpoint(TRUNCATE)');
    return { platformId: platform.id, ms: performance.now() - started };
  } finally {
    db.close();
  }
}
