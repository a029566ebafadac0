import Database from 'better-sqlite3';

/**
 * Fills a sandbox database file with `count` individual customers of the platform `clientId`
 * by direct SQL, a transaction per 50,000 rows: a million in well under a minute, where the API
 * would take hours. Each is `Seed Person <i>` (email `seed<i>@example.com`, platform customer
 * id `seed-<i>`), APPROVED, with time-ordered ids. Rows go in as a repo would write them but
 * without their stored wire JSON (the service presents such rows itself); the triggers of the
 * schema (counts, search keys) run as for any insert. The file must not be open in a sandbox.
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
    const insert = db.prepare(
      `INSERT INTO customers (id, platform_id, customer_type, platform_customer_id, uma_address, region, currencies, kyc_status, profile, consent, contact, is_deleted, created_at, updated_at)
       VALUES (?, ?, 'INDIVIDUAL', ?, ?, 'US', '["USD"]', 'APPROVED', ?, NULL, NULL, 0, ?, ?)`,
    );
    // Ids are UUIDv7-shaped and in creation order, a millisecond apart, ending before now.
    const base = Date.now() - count - 60_000;
    const batch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i += 1) {
        const ms = base + i;
        const t = ms.toString(16).padStart(12, '0');
        const id = `Customer:${t.slice(0, 8)}-${t.slice(8, 12)}-7000-8000-${i.toString(16).padStart(12, '0')}`;
        const at = new Date(ms).toISOString();
        const profile = JSON.stringify({ fullName: `Seed Person ${i}`, birthDate: '1990-01-15', nationality: 'US', email: `seed${i}@example.com` });
        insert.run(id, platform.id, `seed-${i}`, `$seed${i}@sandbox.uma.money`, profile, at, at);
      }
    });
    for (let from = 0; from < count; from += 50_000) batch(from, Math.min(count, from + 50_000));
    db.pragma('wal_checkpoint(TRUNCATE)');
    return { platformId: platform.id, ms: performance.now() - started };
  } finally {
    db.close();
  }
}
