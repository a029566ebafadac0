import { describe, expect, it } from 'vitest';
import { individual, unique, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();

/** What a transaction says, without what differs between two payments (ids, times, addresses). */
function essence(tx: Record<string, any>) {
  return {
    type: tx.type,
    status: tx.status,
    failureReason: tx.failureReason,
    received: tx.receivedAmount,
    sent: tx.sentAmount,
    counterparty: tx.counterpartyInformation?.FULL_NAME,
  };
}

async function receive(api: Api, sender: string) {
  const customer = (await api.post('/customers', individual(['USD'], { umaAddress: `$${unique('rx').toLowerCase()}@sandbox.uma.money` }))).body;
  const res = await api.post('/sandbox/uma/receive', {
    senderUmaAddress: sender,
    customerId: customer.id,
    receivingCurrencyCode: 'USD',
    receivingCurrencyAmount: 5_000,
  });
  return { res, customer };
}

describe('UMA test addresses under both sandbox domains', () => {
  it.each(['$success.usd', '$pending.long.usd', '$fail.compliance.usd'])(
    '%s@sandbox.grid.uma.money (the contract’s example domain) behaves exactly like @sandbox.uma.money',
    async (name) => {
      const api = await s.api.newPlatform();
      const canonical = await receive(api, `${name}@sandbox.uma.money`);
      const grid = await receive(api, `${name}@sandbox.grid.uma.money`);
      expect(grid.res.status, JSON.stringify(grid.res.body)).toBe(canonical.res.status);
      expect(grid.res.status).not.toBe(404);
      expect(essence(grid.res.body)).toEqual(essence(canonical.res.body));
      expect(grid.res.body.source?.umaAddress).toBe(`${name}@sandbox.grid.uma.money`);
      await api.advance(5 * 60 * 60);
      const later = async (id: string) => essence((await api.get(`/transactions/${id}`)).body);
      expect(await later(grid.res.body.id)).toEqual(await later(canonical.res.body.id));
    },
  );

  it('receiver lookups answer under the grid domain too; other domains stay unknown', async () => {
    const api = await s.api.newPlatform();
    const sender = (await api.post('/customers', individual(['USD']))).body;
    const lookup = (address: string) => api.get(`/receiver/uma/${encodeURIComponent(address)}?customerId=${encodeURIComponent(sender.id)}`);
    const grid = await lookup('$success.eur@sandbox.grid.uma.money');
    expect(grid.status, JSON.stringify(grid.body)).toBe(200);
    expect(grid.body.receiverUmaAddress).toBe('$success.eur@sandbox.grid.uma.money');
    expect((await lookup('$success.eur@grid.uma.money')).status).toBe(404);
  });
});
