import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { internalAccountRepo } from '../../src/resources/internal-accounts/service.js';
import { platformService } from '../../src/tenancy/index.js';
import { Api, individual } from '../helpers/sandbox.js';

// Internal accounts store their ids (and their customers') as the UUID's 16 bytes. An id is found
// only as the sandbox wrote it: `<Type>:` and a lower-case UUID; any other spelling of the same
// digits, or text that is not one, matches no account (and is never an error).

describe('internal accounts: ids as bytes', () => {
  it('finds an account and its customer by their ids as written, and nothing for any other spelling', async () => {
    const sandbox = await startSandbox();
    try {
      const api = new Api(sandbox);
      const created = await api.post('/customers', individual(['USD', 'EUR']));
      expect(created.status).toBe(201);
      const customerId = created.body.id as string;
      const ctx = sandbox.context;
      const platform = platformService(ctx).list()[0]!;
      const repo = internalAccountRepo(ctx);
      const accounts = repo.byOwner(platform.id, customerId);
      expect(accounts.map((row) => row.currency).sort()).toEqual(['EUR', 'USD']);
      const id = accounts[0]!.id;
      expect(id).toMatch(/^InternalAccount:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(repo.byId(platform.id, id)?.id).toBe(id);
      expect(repo.byId(platform.id, id)?.customer_id).toBe(customerId);

      const uuid = id.slice('InternalAccount:'.length);
      const spellings = [
        `InternalAccount:${uuid.toUpperCase()}`,
        `InternalAccount:${uuid.slice(0, 35)}A`,
        `InternalAccount:${uuid.slice(0, 35)}g`,
        `InternalAccount:${uuid.slice(0, 35)}é`,
        `InternalAccount:${uuid.replace(/-/g, '')}-----`,
        `InternalAccount:${uuid.slice(0, 8)}_${uuid.slice(9)}`,
        `InternalAccount:${uuid} `,
        `Customer:${uuid}`,
        `internalaccount:${uuid}`,
        uuid,
        '',
      ];
      for (const spelling of spellings) expect(repo.byId(platform.id, spelling), spelling).toBeUndefined();
      expect(repo.byOwner(platform.id, customerId.toUpperCase().replace('CUSTOMER:', 'Customer:'))).toEqual([]);
      expect(repo.byOwner(platform.id, `${customerId.slice(0, -1)}x`)).toEqual([]);
      // Over HTTP: an account id the sandbox never made is an unknown account, not a 400 or a 500.
      const unknown = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId.toUpperCase().replace('CUSTOMER:', 'Customer:'))}`);
      expect(unknown.status).toBe(200);
      expect(unknown.body.data).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});
