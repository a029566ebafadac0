import { describe, expect, it } from 'vitest';
import { individual, useSandbox } from '../helpers/sandbox.js';

// Every list reads its page (and its bounded count) through an index: this file records the SQL
// the lists prepare for each documented filter combination and checks SQLite's plan for each.
const s = useSandbox();

const LIST_SQL = /^SELECT (\* FROM|(json_object\(.*\)|"\w+") FROM \w+ INDEXED BY|COUNT\(\*\) FROM \(SELECT 1 FROM|COALESCE\(SUM\(n\), 0\) FROM)/;

describe('list query plans', () => {
  it('reads each filter combination through an index, with no table scan and no sort', async () => {
    const db = s.sandbox.context.db;
    const seen = new Set<string>();
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      if (LIST_SQL.test(sql)) seen.add(sql);
      return prepare(sql);
    }) as typeof db.prepare;
    const { api } = s;
    const customer = (await api.post('/customers', individual(['USD']))).body;
    const t = '2025-01-01T00:00:00Z';
    const paths = [
      ...[
        '',
        'isIncludingDeleted=true',
        'customerType=BUSINESS',
        'customerType=BUSINESS&isIncludingDeleted=true',
        'platformCustomerId=x',
        'platformCustomerId=x&isIncludingDeleted=true',
        'umaAddress=%24x%40example.com',
        'region=US',
        'region=US&customerType=INDIVIDUAL',
        'currency=USD',
        `createdAfter=${t}`,
        `createdBefore=${t}`,
        `createdAfter=${t}&createdBefore=${t}&customerType=INDIVIDUAL`,
        `updatedAfter=${t}&updatedBefore=${t}`,
        `platformCustomerId=x&currency=USD&createdAfter=${t}`,
      ].map((q) => `/customers?${q}`),
      ...[
        '',
        'sortOrder=asc',
        `customerId=${encodeURIComponent(customer.id)}`,
        'platformCustomerId=x',
        'senderAccountIdentifier=x',
        'receiverAccountIdentifier=x',
        'status=COMPLETED',
        'type=INCOMING',
        'type=INCOMING&status=PENDING',
        'reference=x',
        `startDate=${t}&endDate=${t}`,
        'accountIdentifier=x',
      ].map((q) => `/transactions?${q}`),
      ...['', 'currency=USD', 'type=INTERNAL_FIAT', `customerId=${encodeURIComponent(customer.id)}`, `customerId=${encodeURIComponent(customer.id)}&currency=USD`].map(
        (q) => `/customers/internal-accounts?${q}`,
      ),
      ...['', 'currency=USD', `customerId=${encodeURIComponent(customer.id)}`].map((q) => `/customers/external-accounts?${q}`),
      '/platform/external-accounts',
      '/platform/external-accounts?currency=USD',
      `/beneficial-owners?customerId=${encodeURIComponent(customer.id)}`,
      '/documents',
      '/documents?documentHolder=x',
      '/verifications',
      '/verifications?verificationStatus=APPROVED',
      `/verifications?customerId=${encodeURIComponent(customer.id)}&verificationStatus=APPROVED`,
      ...['', 'type=CUSTOMER.KYC_APPROVED', 'status=DELIVERED', `resourceId=${encodeURIComponent(customer.id)}`, `since=${t}`, `since=${t}&type=CUSTOMER.KYC_APPROVED`].map(
        (q) => `/_sandbox/webhooks/deliveries?${q}`,
      ),
    ];
    for (const path of paths) expect((await api.get(path)).status, path).toBe(200);
    db.prepare = prepare as typeof db.prepare;

    expect(seen.size).toBeGreaterThan(40);
    for (const sql of seen) {
      const params = [...sql.matchAll(/\?/g)].map(() => 'x');
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail);
      if (process.env.LIST_PLANS) console.log(`${sql}\n  ${plan.join("\n  ")}`);
      const tables = plan.filter((detail) => /^(SCAN|SEARCH) (?!json_each|\(subquery)/.test(detail));
      expect(tables.length, `${sql}\n${plan.join('\n')}`).toBeGreaterThan(0);
      for (const detail of tables) expect(detail, `${sql}\n${plan.join('\n')}`).toMatch(/^SEARCH \w+ USING (PRIMARY KEY \(|(COVERING )?INDEX )/);
      const sorts = plan.filter((detail) => detail.includes('TEMP B-TREE'));
      expect(sorts, `${sql}\n${plan.join('\n')}`).toEqual([]);
    }
  });
});
