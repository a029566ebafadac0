import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';

const s = useSandbox();

describe('GET /vasps', () => {
  it('pages through the whole directory in name order, each entry once', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await s.api.get(`/vasps?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(7);
      expect(res.body).not.toHaveProperty('totalCount');
      names.push(...res.body.data.map((v: { vaspName: string }) => v.vaspName));
      cursor = res.body.nextCursor;
      expect(Boolean(cursor)).toBe(res.body.hasMore);
      pages += 1;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
    const first = await s.api.get('/vasps?limit=100');
    expect(first.body.data.map((v: { vaspName: string }) => v.vaspName)).toEqual(names);
    expect(first.body.data).toContainEqual({ vaspName: 'Kraken', url: 'https://www.kraken.com' });
  });

  it('defaults to 20 per page and rejects bad limits and cursors', async () => {
    const res = await s.api.get('/vasps');
    expect(res.body.data).toHaveLength(20);
    expect(res.body.hasMore).toBe(true);
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'cursor=not-a-cursor']) {
      const bad = await s.api.get(`/vasps?${q}`);
      expect(bad.status, q).toBe(400);
      expect(bad.body.code).toBe('INVALID_INPUT');
    }
  });
});
