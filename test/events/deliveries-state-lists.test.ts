import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { Api, everyPage, individual, queryPlan, recordPrepared } from '../helpers/sandbox.js';

// outbox-perf-005: a platform's events are the ranges of its delivery states in the state index.
// The deliveries list with no type, resource or state filter (with `since` or without), its
// bounded count and the newest event's seq (where an event stream starts) read those ranges
// merged in seq order, newest first (the event stream's tail oldest first), instead of an index
// of their own. Checked against every
// event appended, in every state, page by page, with another platform's events beside them.

/** Every delivery state an event can be in (docs/webhooks.md), each a range the merged reads must cover. */
const DELIVERY_STATES = ['PENDING', 'SENDING', 'RETRYING', 'DELIVERED', 'FAILED', 'NO_ENDPOINT'];

describe('deliveries: lists over the delivery-state index', () => {
  it('pages every event of the platform newest first across its delivery states, with `since` too, exact counts, the newest seq and the stream tail; the merged SQL reads index ranges only', async () => {
    const sandbox = await startSandbox();
    try {
      const ctx = sandbox.context;
      const api = new Api(sandbox);
      const other = await api.newPlatform();
      const platformId = (ctx.db.prepare('SELECT id FROM platforms WHERE client_id = ?').pluck().get(sandbox.clientId) as string) ?? '';
      const recording = recordPrepared(ctx.db, (sql) => sql.includes('events_list_state') && sql.includes(' UNION ALL '));

      // Events of this platform (each customer's KYC event), the other platform's between them,
      // and then their states set in turn so each merge takes turns between all six ranges.
      const made: string[] = [];
      let since = '';
      for (let i = 0; i < 15; i += 1) {
        expect((await api.post('/customers', individual(['USD']))).status).toBe(201);
        expect((await other.post('/customers', individual(['USD']))).status).toBe(201);
        if (i === 9) {
          await api.advance(60);
          since = new Date(ctx.clock.now()).toISOString();
        }
      }
      const rows = ctx.db.prepare('SELECT id, seq, created_at FROM events WHERE platform_id = ? ORDER BY seq DESC').all(platformId) as { id: string; seq: number; created_at: string }[];
      expect(rows.length).toBeGreaterThanOrEqual(15);
      ctx.tx(() => {
        const setState = ctx.db.prepare('UPDATE events SET delivery_state = ? WHERE id = ?');
        rows.forEach((row, i) => setState.run(DELIVERY_STATES[i % DELIVERY_STATES.length], row.id));
      });
      made.push(...rows.map((row) => row.id));
      const recent = rows.filter((row) => row.created_at >= since).map((row) => row.id);
      expect(recent.length).toBeGreaterThan(3);
      expect(recent.length).toBeLessThan(made.length);

      for (const limit of [1, 4, 7]) {
        expect(await everyPage(api, '/_sandbox/webhooks/deliveries', limit)).toEqual({ ids: made, totalCount: made.length });
        expect(await everyPage(api, `/_sandbox/webhooks/deliveries?since=${encodeURIComponent(since)}`, limit)).toEqual({ ids: recent, totalCount: recent.length });
      }
      for (const state of DELIVERY_STATES) {
        const ids = rows.filter((_, i) => DELIVERY_STATES[i % DELIVERY_STATES.length] === state).map((row) => row.id);
        expect(await everyPage(api, `/_sandbox/webhooks/deliveries?status=${state}`, 2), state).toEqual({ ids, totalCount: ids.length });
      }
      expect(ctx.outbox.latestSeq(platformId)).toBe(rows[0]!.seq);
      // The event stream's tail: the platform's events after a seq, oldest first, batch by batch.
      const tail: string[] = [];
      for (let after = 0, batch = ctx.outbox.list(platformId, 0, 4); batch.length > 0; batch = ctx.outbox.list(platformId, after, 4)) {
        tail.push(...batch.map((event) => event.id));
        expect(tail.length, 'the tail moves on').toBeLessThanOrEqual(made.length);
        after = batch[batch.length - 1]!.seq;
      }
      expect(tail).toEqual([...made].reverse());
      expect(ctx.outbox.list(platformId, rows[3]!.seq, 100).map((event) => event.id)).toEqual(made.slice(0, 3).reverse());
      expect(ctx.outbox.latestSeq('Platform:00000000-0000-7000-8000-000000000000')).toBe(0);

      recording.stop();
      expect(recording.seen.size).toBeGreaterThanOrEqual(3);
      for (const sql of recording.seen) {
        const plan = queryPlan(ctx.db, sql);
        const tables = plan.filter((detail) => /^(SCAN|SEARCH) (?!\(subquery)/.test(detail));
        expect(tables.length, sql).toBe(DELIVERY_STATES.length);
        for (const detail of tables) expect(detail, `${sql}\n${plan.join('\n')}`).toMatch(/^SEARCH events USING INDEX events_list_state \(<expr>=\? AND delivery_state=\?/);
        if (!sql.startsWith('SELECT COUNT(*)')) expect(plan, sql).toContain('MERGE (UNION ALL)');
        expect(plan.filter((detail) => detail.includes('TEMP B-TREE')), sql).toEqual([]);
      }
    } finally {
      await sandbox.close();
    }
  });
});
