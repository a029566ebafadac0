import { describe, expect, it } from 'vitest';
import { allMigrations } from '../../src/index.js';
import { migrate, openDatabase } from '../../src/store/db.js';
import { CUSTOMER_COUNTS } from '../../src/resources/customers/repo.js';
import { DeferredCounts } from '../../src/store/deferred-counts.js';

// A database made before the lists migrations gets its kept counts from the rows it holds; from
// then on the triggers follow updates and deletions, and the writer counts the rows it creates
// (the repo, through DeferredCounts, since customers-perf-006).
describe('lists migrations on an existing database', () => {
  it('fills the kept counts from existing rows, then follows creates, updates and deletes', () => {
    const db = openDatabase(':memory:');
    migrate(db, allMigrations.filter((m) => !m.id.includes('-lists-') && !m.id.includes('-perf-')));
    const insert = db.prepare(
      `INSERT INTO customers (id, platform_id, customer_type, platform_customer_id, uma_address, region, currencies, kyc_status, profile, is_deleted, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'US', '["USD"]', 'APPROVED', '{}', ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
    );
    insert.run('Customer:1', 'P1', 'INDIVIDUAL', 'a', '$a@x.com', 0);
    insert.run('Customer:2', 'P1', 'INDIVIDUAL', 'b', '$b@x.com', 1);
    insert.run('Customer:3', 'P1', 'BUSINESS', 'c', '$c@x.com', 0);
    insert.run('Customer:4', 'P2', 'BUSINESS', 'd', '$d@x.com', 0);
    expect(migrate(db, allMigrations)).toContain('customers-lists-001');
    const counts = () => db.prepare('SELECT platform_id, customer_type, is_deleted, n FROM customer_counts WHERE n > 0 ORDER BY 1, 2, 3').all();
    expect(counts()).toEqual([
      { platform_id: 'P1', customer_type: 'BUSINESS', is_deleted: 0, n: 1 },
      { platform_id: 'P1', customer_type: 'INDIVIDUAL', is_deleted: 0, n: 1 },
      { platform_id: 'P1', customer_type: 'INDIVIDUAL', is_deleted: 1, n: 1 },
      { platform_id: 'P2', customer_type: 'BUSINESS', is_deleted: 0, n: 1 },
    ]);
    insert.run('Customer:5', 'P1', 'INDIVIDUAL', 'e', '$e@x.com', 0);
    new DeferredCounts(db).add(CUSTOMER_COUNTS, ['P1', 'INDIVIDUAL', 0], 1);
    db.prepare("UPDATE customers SET is_deleted = 1 WHERE id = 'Customer:3'").run();
    db.prepare("UPDATE customers SET region = 'DE' WHERE id = 'Customer:1'").run();
    db.prepare("DELETE FROM customers WHERE platform_id = 'P2'").run();
    expect(counts()).toEqual([
      { platform_id: 'P1', customer_type: 'BUSINESS', is_deleted: 1, n: 1 },
      { platform_id: 'P1', customer_type: 'INDIVIDUAL', is_deleted: 0, n: 2 },
      { platform_id: 'P1', customer_type: 'INDIVIDUAL', is_deleted: 1, n: 1 },
    ]);
    db.close();
  });
});
