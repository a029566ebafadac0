import { afterAll, describe, expect, it } from 'vitest';
import { WEBHOOK_TYPES } from '../../src/events/index.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { individual, unique, useSandbox } from '../helpers/sandbox.js';
import { Receiver } from './receiver.js';
import { deliveryReaches, eventually, verifies } from './helpers.js';

const s = useSandbox();
let receiver: Receiver | undefined;
afterAll(async () => receiver?.close());

describe('events the areas record', () => {
  it('reach a real receiver signed, and each body fits its contract webhook schema', async () => {
    // The TEST event configuring the endpoint sends is one of the events checked here.
    receiver = await Receiver.start(undefined, 0, { swallowConfigTest: false });
    const api = await s.api.newPlatform();
    await api.patch('/config', { webhookEndpoint: receiver.url });
    const pem = (await api.get('/_sandbox/webhooks/public-key')).body.publicKey;

    const customer = await api.post('/customers', individual(['USD']));
    expect(customer.status).toBe(201);
    const accounts = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}`);
    const usd = accounts.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD');
    expect((await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 100_00 })).status).toBe(200);

    const recorded = await eventually(async () => {
      const page = (await api.get('/_sandbox/webhooks/deliveries?limit=100')).body;
      expect(page.totalCount).toBeGreaterThan(0);
      return page.data as { id: string; type: string }[];
    });
    for (const event of recorded) await deliveryReaches(api, event.id, 'DELIVERED');
    await receiver.waitFor(recorded.length);
    expect(recorded.map((e) => e.type)).toContain('INCOMING_PAYMENT.COMPLETED');
    for (const got of receiver.received) {
      expect(verifies(pem, got.raw, got.headers['x-service-signature'])).toBe(true);
      const webhook = WEBHOOK_TYPES[got.body.type];
      expect(webhook, got.body.type).toEqual(expect.any(String));
      assertFitsWebhook(webhook!, got.body);
    }
    expect(receiver.received.map((r) => r.body.id).sort()).toEqual(recorded.map((e) => e.id).sort());
  });
});
