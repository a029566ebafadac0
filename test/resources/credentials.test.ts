import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { platformService } from '../../src/tenancy/index.js';
import { hashSecret, verifySecret } from '../../src/crypto/secret-hash.js';
import { Api, unique, useSandbox, withLastChanged } from '../helpers/sandbox.js';

const s = useSandbox();

/** The stored form the sandbox writes: scrypt (ln=14, r=8, p=1), 16-byte salt, 32-byte hash, base64 without padding. */
const SCRYPT = /^\$scrypt\$ln=14,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;
const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

const storedSecret = (clientId: string) =>
  (s.sandbox.context.db.prepare('SELECT client_secret FROM platforms WHERE client_id = ?').get(clientId) as { client_secret: string }).client_secret;
const storedToken = (clientId: string) =>
  (s.sandbox.context.db.prepare('SELECT secret_hash FROM api_tokens WHERE client_id = ?').get(clientId) as { secret_hash: string | Buffer }).secret_hash;

describe('stored credentials: salted scrypt, checked in constant time', () => {
  it('a platform secret is stored as a salted scrypt hash, different for the same secret on two platforms, and never in clear', async () => {
    const secret = `shared-${unique('secret')}`;
    const a = unique('platform-a');
    const b = unique('platform-b');
    for (const clientId of [a, b]) expect((await s.api.post('/_sandbox/platforms', { clientId, clientSecret: secret })).status).toBe(201);
    const [storedA, storedB] = [storedSecret(a), storedSecret(b)];
    expect(storedA).toMatch(SCRYPT);
    expect(storedB).toMatch(SCRYPT);
    expect(storedA).not.toBe(storedB);
    expect(storedA).not.toContain(secret);
    expect(storedA).not.toContain(sha256(secret).toString('hex'));
    expect(await verifySecret(secret, storedA)).toBe(true);
    expect(await verifySecret(`${secret}x`, storedA)).toBe(false);
    const api = s.api.as(a, secret);
    expect((await api.get('/config')).status).toBe(200);
    expect((await api.get('/config', { auth: { clientId: a, clientSecret: `${secret}x` } })).status).toBe(401);
    expect((await api.get('/config', { auth: { clientId: unique('nobody'), clientSecret: secret } })).status).toBe(401);
  });

  it('a platform kept as unsalted SHA-256 (an older database) still signs in, and its first success stores scrypt instead', async () => {
    const api = await s.api.newPlatform();
    const before = (await api.get('/config')).body;
    s.sandbox.context.db.prepare('UPDATE platforms SET client_secret = ? WHERE client_id = ?').run(`sha256:${sha256(api.clientSecret).toString('hex')}`, api.clientId);
    platformService(s.sandbox.context).invalidate();
    // A wrong secret changes nothing.
    expect((await api.get('/config', { auth: { clientId: api.clientId, clientSecret: 'wrong' } })).status).toBe(401);
    expect(storedSecret(api.clientId)).toMatch(/^sha256:[0-9a-f]{64}$/);
    const after = await api.get('/config');
    expect(after.status).toBe(200);
    // The upgrade is not an update of the platform: updatedAt stays.
    expect(after.body).toEqual(before);
    expect(storedSecret(api.clientId)).toMatch(SCRYPT);
    expect(await verifySecret(api.clientSecret, storedSecret(api.clientId))).toBe(true);
    expect((await api.get('/config')).status).toBe(200);
  });

  it('an API token secret is stored as scrypt; a token kept as a raw SHA-256 digest still works and is re-hashed on first use; a deleted token fails at once', async () => {
    const api = await s.api.newPlatform();
    const created = await api.post('/tokens', { name: 'ci', permissions: ['VIEW'] });
    expect(created.status).toBe(201);
    const { clientId, clientSecret, id } = created.body as { clientId: string; clientSecret: string; id: string };
    expect(storedToken(clientId)).toMatch(SCRYPT);
    const token = api.as(clientId, clientSecret);
    expect((await token.get('/config')).status).toBe(200);
    s.sandbox.context.db.prepare('UPDATE api_tokens SET secret_hash = ? WHERE client_id = ?').run(sha256(clientSecret), clientId);
    expect((await token.get('/config', { auth: { clientId, clientSecret: withLastChanged(clientSecret) } })).status).toBe(401);
    expect(Buffer.isBuffer(storedToken(clientId))).toBe(true);
    expect((await token.get('/config')).status).toBe(200);
    expect(storedToken(clientId)).toMatch(SCRYPT);
    expect((await api.delete(`/tokens/${encodeURIComponent(id)}`)).status).toBe(204);
    expect((await token.get('/config')).status).toBe(401);
  });

  it('a snapshot carrying a token in the old form restores a token that works (and is then re-hashed)', async () => {
    const api = await s.api.newPlatform();
    const created = (await api.post('/tokens', { name: 'snap', permissions: ['VIEW'] })).body as { clientId: string; clientSecret: string };
    s.sandbox.context.db.prepare('UPDATE api_tokens SET secret_hash = ? WHERE client_id = ?').run(sha256(created.clientSecret), created.clientId);
    const snapshot = (await api.get('/_sandbox/snapshot')).body;
    const fresh = await startSandbox();
    try {
      const target = new Api(fresh);
      expect((await target.post('/_sandbox/snapshot', snapshot)).status).toBe(200);
      const token = target.as(created.clientId, created.clientSecret);
      expect((await token.get('/config')).status).toBe(200);
      const stored = (fresh.context.db.prepare('SELECT secret_hash FROM api_tokens WHERE client_id = ?').get(created.clientId) as { secret_hash: string }).secret_hash;
      expect(stored).toMatch(SCRYPT);
      // ...and a snapshot taken now carries the scrypt form, which restores as it is.
      expect((await target.get('/_sandbox/snapshot')).body.tables.api_tokens.rows[0]).toContain(stored);
    } finally {
      await fresh.close();
    }
  });

  it('a database file from before: a plaintext or SHA-256 default secret is replaced by scrypt at start; another secret at restart replaces it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-credentials-'));
    const db = join(dir, 'sandbox.db');
    try {
      const first = await startSandbox({ db, clientId: 'legacy', clientSecret: 'legacy-secret' });
      const row = () => first.context.db.prepare("SELECT client_secret, updated_at FROM platforms WHERE client_id = 'legacy'").get() as { client_secret: string; updated_at: string };
      expect(row().client_secret).toMatch(SCRYPT);
      first.context.db.prepare("UPDATE platforms SET client_secret = 'legacy-secret' WHERE client_id = 'legacy'").run();
      const updatedAt = row().updated_at;
      await first.close();

      const second = await startSandbox({ db, clientId: 'legacy', clientSecret: 'legacy-secret' });
      const read = (sandbox: typeof second) => sandbox.context.db.prepare("SELECT client_secret, updated_at FROM platforms WHERE client_id = 'legacy'").get() as { client_secret: string; updated_at: string };
      expect(read(second).client_secret).toMatch(SCRYPT);
      expect(read(second).updated_at).toBe(updatedAt);
      expect((await new Api(second).get('/config')).status).toBe(200);
      second.context.db.prepare("UPDATE platforms SET client_secret = ? WHERE client_id = 'legacy'").run(`sha256:${sha256('legacy-secret').toString('hex')}`);
      await second.close();

      const third = await startSandbox({ db, clientId: 'legacy', clientSecret: 'another-secret' });
      expect(read(third).client_secret).toMatch(SCRYPT);
      expect(await verifySecret('another-secret', read(third).client_secret)).toBe(true);
      expect((await new Api(third).get('/config')).status).toBe(200);
      expect((await new Api(third, 'legacy', 'legacy-secret').get('/config')).status).toBe(401);
      await third.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hashSecret salts: the same secret twice gives two hashes, each verifying it', async () => {
    const [one, two] = await Promise.all([hashSecret('same'), hashSecret('same')]);
    expect(one).not.toBe(two);
    expect(await verifySecret('same', one)).toBe(true);
    expect(await verifySecret('same', two)).toBe(true);
    expect(await verifySecret('Same', one)).toBe(false);
    expect(await verifySecret('same', '$scrypt$ln=14,r=8,p=1$garbage')).toBe(false);
  });
});
