import { describe, expect, it } from 'vitest';
import { individual, useSandbox, withLastChanged } from '../helpers/sandbox.js';

const s = useSandbox();

describe('API tokens', () => {
  it('creates a token whose credentials list customers, then deletes it and refuses them', async () => {
    const api = await s.api.newPlatform();
    const created = await api.post('/customers', individual(['USD']));
    expect(created.status).toBe(201);

    const token = await api.post('/tokens', { name: 'ci', permissions: ['VIEW', 'MANAGE'] });
    expect(token.status).toBe(201);
    expect(token.body.id).toMatch(/^Token:/);
    expect(token.body.clientSecret).toMatch(/^[0-9a-f]{64}$/);
    const asToken = api.as(token.body.clientId, token.body.clientSecret);

    const customers = await asToken.get('/customers');
    expect(customers.status).toBe(200);
    expect(customers.body.data.map((c: { id: string }) => c.id)).toContain(created.body.id);

    const listed = await api.get('/tokens');
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).not.toHaveProperty('clientSecret');
    const got = await api.get(`/tokens/${token.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('clientSecret');
    expect(got.body.permissions).toEqual(['VIEW', 'MANAGE']);

    expect((await asToken.delete(`/tokens/${token.body.id}`)).status).toBe(204);
    const refused = await asToken.get('/customers');
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('UNAUTHORIZED');
    // The platform's initial credentials keep working; deleting twice is a 404.
    const again = await api.delete(`/tokens/${token.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('TOKEN_NOT_FOUND');
    expect((await api.get('/tokens')).body.data).toHaveLength(0);
  });

  it('enforces the permissions: VIEW reads but cannot manage or transact', async () => {
    const api = await s.api.newPlatform();
    const token = await api.post('/tokens', { name: 'read-only', permissions: ['VIEW'] });
    const viewer = api.as(token.body.clientId, token.body.clientSecret);
    expect((await viewer.get('/config')).status).toBe(200);
    const manage = await viewer.post('/customers', individual(['USD']), { unchecked: true });
    expect(manage.status).toBe(403);
    expect(manage.body.code).toBe('FORBIDDEN');
    const tokens = await viewer.post('/tokens', { name: 'escalate', permissions: ['MANAGE'] }, { unchecked: true });
    expect(tokens.status).toBe(403);
    expect((await api.get('/customers')).body.data).toHaveLength(0);

    const transactor = await api.post('/tokens', { name: 'payer', permissions: ['TRANSACT'] });
    const payer = api.as(transactor.body.clientId, transactor.body.clientSecret);
    expect((await payer.get('/customers', { unchecked: true })).status).toBe(403);
    // TRANSACT passes authentication for a quote: the quote service itself then judges the body.
    const quote = await payer.post('/quotes', {}, { unchecked: true });
    expect(quote.status).toBe(400);
  });

  it('a MANAGE token mints tokens with what it holds, never more (no way from MANAGE to TRANSACT)', async () => {
    const api = await s.api.newPlatform();
    const made = await api.post('/tokens', { name: 'admin', permissions: ['MANAGE', 'VIEW'] });
    const admin = api.as(made.body.clientId, made.body.clientSecret);
    const escalate = await admin.post('/tokens', { name: 'payer', permissions: ['VIEW', 'TRANSACT'] }, { unchecked: true });
    expect(escalate.status).toBe(403);
    expect(escalate.body).toMatchObject({ code: 'FORBIDDEN', details: { permissions: ['TRANSACT'] } });
    expect(escalate.body.message).toContain('TRANSACT');
    expect((await api.get('/tokens')).body.data).toHaveLength(1);
    const viewer = await admin.post('/tokens', { name: 'viewer', permissions: ['VIEW'] });
    expect(viewer.status).toBe(201);
    // The platform's own credentials hold every permission.
    expect((await api.post('/tokens', { name: 'payer', permissions: ['TRANSACT'] })).status).toBe(201);
  });

  it('refuses a wrong secret, another platform\'s token, and bad input', async () => {
    const api = await s.api.newPlatform();
    const other = await s.api.newPlatform();
    const token = await api.post('/tokens', { name: 'x', permissions: ['VIEW'] });
    const secret: string = token.body.clientSecret;
    const wrong = await api.as(token.body.clientId, withLastChanged(secret)).get('/customers');
    expect(wrong.status).toBe(401);
    expect((await other.get(`/tokens/${token.body.id}`)).status).toBe(404);
    expect((await other.delete(`/tokens/${token.body.id}`)).status).toBe(404);
    for (const body of [{ name: 'x' }, { name: 'x', permissions: ['ROOT'] }, { name: '', permissions: ['VIEW'] }, { permissions: [] }]) {
      const bad = await api.post('/tokens', body);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('INVALID_INPUT');
    }
    expect((await api.get('/tokens')).body.totalCount).toBe(1);
  });

  it('lists with filters and cursor pagination', async () => {
    const api = await s.api.newPlatform();
    for (let i = 0; i < 5; i += 1) await api.post('/tokens', { name: i % 2 ? 'odd' : 'even', permissions: ['VIEW'] });
    const odd = await api.get('/tokens?name=odd');
    expect(odd.body.data).toHaveLength(2);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.get(`/tokens?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.totalCount).toBe(5);
      seen.push(...page.body.data.map((t: { id: string }) => t.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(5);
    expect((await api.get('/tokens?createdAfter=2999-01-01T00:00:00Z')).body.data).toHaveLength(0);
    expect((await api.get('/tokens?createdAfter=yesterday')).status).toBe(400);
  });
});
