import { createHash, createPublicKey } from 'node:crypto';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { p256 } from '@noble/curves/nist.js';
import { afterAll, describe, expect, it } from 'vitest';
import { assertFitsWebhook } from '../helpers/contract.js';
import { useSandbox, type Api } from '../helpers/sandbox.js';
import { WEBHOOK_TYPES } from '../../src/events/index.js';
import { Receiver, type Answer } from './receiver.js';
import { deliveryOf, deliveryReaches, eventually, individualCustomer, platformIdOf, verifies } from './helpers.js';

const s = useSandbox();
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(answer?: Answer): Promise<Receiver> {
  const r = await Receiver.start(answer);
  receivers.push(r);
  return r;
}

/** A new platform whose webhook endpoint is `url`. */
async function platformWithEndpoint(url: string): Promise<Api> {
  const api = await s.api.newPlatform();
  const res = await api.patch('/config', { webhookEndpoint: url });
  expect(res.status).toBe(200);
  // Configuring the endpoint sends one TEST event (the contract's test-webhook): let it land first.
  await eventually(async () => {
    const tests = (await api.get('/_sandbox/webhooks/deliveries?type=TEST')).body.data as { status: string }[];
    expect(tests).toHaveLength(1);
    expect(['PENDING', 'SENDING']).not.toContain(tests[0]!.status);
  });
  return api;
}

/** The TEST event configuring the endpoint sent. */
async function configTestId(api: Api): Promise<string> {
  const tests = (await api.get('/_sandbox/webhooks/deliveries?type=TEST')).body.data as { id: string }[];
  return tests[tests.length - 1]!.id;
}

async function publicKey(api: Api): Promise<string> {
  const res = await api.get('/_sandbox/webhooks/public-key');
  expect(res.status).toBe(200);
  return res.body.publicKey;
}

async function trigger(api: Api, type: string, resourceId?: string): Promise<any> {
  const res = await api.post('/_sandbox/webhooks/trigger', resourceId ? { type, resourceId } : { type });
  expect(res.status).toBe(201);
  return res.body;
}

describe('signing key', () => {
  it('publishes one P-256 SPKI public key per database', async () => {
    const pem = await publicKey(s.api);
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/);
    const { createPublicKey } = await import('node:crypto');
    const key = createPublicKey(pem);
    expect(key.asymmetricKeyType).toBe('ec');
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const other = await s.api.newPlatform();
    expect(await publicKey(other)).toBe(pem);
  });

  it('needs the platform credentials', async () => {
    const res = await s.api.get('/_sandbox/webhooks/public-key', { auth: false });
    expect(res.status).toBe(401);
  });
});

describe('POST /sandbox/webhooks/test', () => {
  it('answers 400 WEBHOOK_ENDPOINT_NOT_SET without an endpoint and records nothing', async () => {
    const api = await s.api.newPlatform();
    const res = await api.post('/sandbox/webhooks/test');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('WEBHOOK_ENDPOINT_NOT_SET');
    const list = await api.get('/_sandbox/webhooks/deliveries');
    expect(list.body.totalCount).toBe(0);
  });

  it('delivers a signed TEST event and reports what the endpoint answered', async () => {
    const r = await receiver(() => ({ status: 200, body: 'thanks!' }));
    const api = await platformWithEndpoint(r.url);
    const res = await api.post('/sandbox/webhooks/test');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: r.url, response_status: 200, response_body: 'thanks!' });
    expect(r.received).toHaveLength(1);
    const [got] = r.received;
    expect(got!.headers['content-type']).toBe('application/json');
    expect(verifies(await publicKey(api), got!.raw, got!.headers['x-service-signature'])).toBe(true);
    expect(JSON.parse(String(got!.headers['x-service-signature']))).toEqual({ v: '1', s: expect.any(String) });
    assertFitsWebhook('test-webhook', got!.body);
    expect(got!.body).toMatchObject({ type: 'TEST', id: expect.stringMatching(/^Webhook:/), data: {} });
    const delivery = await deliveryOf(api, got!.body.id);
    expect(delivery).toMatchObject({ id: got!.body.id, type: 'TEST', status: 'DELIVERED', timestamp: got!.body.timestamp });
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ attempt: 1, url: r.url, outcome: 'SUCCEEDED', responseStatus: 200, error: null, responseExcerpt: 'thanks!', latencyMs: expect.any(Number) }),
    ]);
  });

  it('sends one signature under X-Service-Signature and X-Grid-Signature; the docs\' steps verify it from X-Grid-Signature', async () => {
    const r = await receiver();
    const api = await platformWithEndpoint(r.url);
    expect((await api.post('/sandbox/webhooks/test')).status).toBe(200);
    const [got] = r.received;
    const grid = got!.headers['x-grid-signature'];
    expect(typeof grid).toBe('string');
    expect(grid).toBe(got!.headers['x-service-signature']);
    // The contract's steps: 1. the public key; 2. decode the base64 signature from the header;
    // 3. SHA-256 of the request body; 4. verify the signature with the key over that hash.
    const key = createPublicKey(await publicKey(api)).export({ format: 'jwk' });
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(key.x!, 'base64url'), Buffer.from(key.y!, 'base64url')]);
    const signature = Buffer.from((JSON.parse(String(grid)) as { s: string }).s, 'base64');
    const hash = createHash('sha256').update(got!.raw).digest();
    expect(p256.verify(signature, hash, point, { prehash: false, format: 'der', lowS: false })).toBe(true);
    const tampered = Buffer.from(got!.raw);
    tampered[tampered.length - 2] ^= 1;
    expect(p256.verify(signature, createHash('sha256').update(tampered).digest(), point, { prehash: false, format: 'der', lowS: false })).toBe(false);
  });

  it('answers 400 WEBHOOK_DELIVERY_ERROR when the endpoint fails, and does not retry', async () => {
    const r = await receiver(() => ({ status: 503, body: 'down for maintenance' }));
    const api = await platformWithEndpoint(r.url);
    const res = await api.post('/sandbox/webhooks/test');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('WEBHOOK_DELIVERY_ERROR');
    expect(res.body.details).toMatchObject({ url: r.url, response_status: 503, response_body: 'down for maintenance' });
    const delivery = await deliveryOf(api, res.body.details.eventId);
    expect(delivery.status).toBe('FAILED');
    await api.advance(3600);
    expect(r.received).toHaveLength(1);
  });

  it('answers 400 WEBHOOK_DELIVERY_ERROR when the connection is refused', async () => {
    const r = await receiver();
    const url = r.url;
    await r.close();
    const api = await platformWithEndpoint(url);
    const res = await api.post('/sandbox/webhooks/test');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('WEBHOOK_DELIVERY_ERROR');
    expect(res.body.details.error).toBe('connection refused');
  });
});

describe('delivery', () => {
  it('retries a failing receiver on the sandbox clock with the same event id and body until it succeeds', async () => {
    const r = await receiver((n) => (n < 2 ? { status: 500, body: `failure ${n + 1}` } : { status: 204 }));
    const api = await platformWithEndpoint(r.url);
    const pem = await publicKey(api);
    const event = await trigger(api, 'TEST');
    expect(event).toMatchObject({ type: 'TEST', attempts: [] });

    await r.waitFor(1);
    const first = await deliveryReaches(api, event.id, 'RETRYING', 1);
    const firstAt = Date.parse(first.attempts[0].attemptedAt);
    expect(Date.parse(first.nextAttemptAt) - firstAt).toBeGreaterThanOrEqual(30_000);
    expect(Date.parse(first.nextAttemptAt) - firstAt).toBeLessThan(35_000);

    await api.advance(30);
    await r.waitFor(2);
    const second = await deliveryReaches(api, event.id, 'RETRYING', 2);
    const secondAt = Date.parse(second.attempts[1].attemptedAt);
    expect(Date.parse(second.nextAttemptAt) - secondAt).toBeGreaterThanOrEqual(60_000);

    await api.advance(60);
    await r.waitFor(3);
    const done = await deliveryReaches(api, event.id, 'DELIVERED', 3);

    expect(r.received.map((x) => x.body.id)).toEqual([event.id, event.id, event.id]);
    expect(r.received[1]!.raw.equals(r.received[0]!.raw)).toBe(true);
    expect(r.received[2]!.raw.equals(r.received[0]!.raw)).toBe(true);
    for (const got of r.received) expect(verifies(pem, got.raw, got.headers['x-service-signature'])).toBe(true);
    expect(done.attempts.map((a: any) => [a.attempt, a.outcome, a.responseStatus, a.responseExcerpt])).toEqual([
      [1, 'FAILED', 500, 'failure 1'],
      [2, 'FAILED', 500, 'failure 2'],
      [3, 'SUCCEEDED', 204, ''],
    ]);
    expect(done.attempts[0].error).toBe('HTTP 500');
    expect(done.deliveredAt).toEqual(expect.any(String));
  });

  it('gives up after 12 attempts on the documented schedule (30 s doubling) and marks the event FAILED', async () => {
    const r = await receiver(() => ({ status: 500 }));
    const api = await platformWithEndpoint(r.url);
    const event = await trigger(api, 'TEST');
    for (let attempt = 1; attempt < 12; attempt += 1) {
      const waiting = await deliveryReaches(api, event.id, 'RETRYING', attempt);
      const last = waiting.attempts[attempt - 1];
      expect(Date.parse(waiting.nextAttemptAt) - Date.parse(last.attemptedAt)).toBeGreaterThanOrEqual(30_000 * 2 ** (attempt - 1));
      expect(Date.parse(waiting.nextAttemptAt) - Date.parse(last.attemptedAt)).toBeLessThan(30_000 * 2 ** (attempt - 1) + 5_000);
      await api.advance(30 * 2 ** (attempt - 1));
    }
    const failed = await deliveryReaches(api, event.id, 'FAILED', 12);
    expect(failed.nextAttemptAt).toBeNull();
    expect(new Set(r.received.map((x) => x.body.id))).toEqual(new Set([event.id]));
    await api.advance(7 * 24 * 3600);
    expect(r.received).toHaveLength(12);
  });

  it('keeps the order of one resource while another resource goes ahead', async () => {
    let failedOnce = false;
    const r = await receiver((_, got) => {
      if (got.body.data?.resourceFirst && !failedOnce) {
        failedOnce = true;
        return { status: 502 };
      }
      return { status: 200 };
    });
    const api = await platformWithEndpoint(r.url);
    const platformId = platformIdOf(s.sandbox, api);
    const ctx = s.sandbox.context;
    const a = 'Customer:0190a000-0000-7000-8000-00000000000a';
    const b = 'Customer:0190a000-0000-7000-8000-00000000000b';
    const [a1, a2, b1] = ctx.tx(() => [
      ctx.outbox.append(platformId, 'CUSTOMER.KYC_PENDING', a, { ...individualCustomer(a, 'PENDING'), resourceFirst: true }),
      ctx.outbox.append(platformId, 'CUSTOMER.KYC_APPROVED', a, individualCustomer(a, 'APPROVED')),
      ctx.outbox.append(platformId, 'CUSTOMER.KYC_APPROVED', b, individualCustomer(b, 'APPROVED')),
    ]);
    await deliveryReaches(api, b1!.id, 'DELIVERED');
    await deliveryReaches(api, a1!.id, 'RETRYING', 1);
    expect((await deliveryOf(api, a2!.id)).status).toBe('PENDING');

    await api.advance(30);
    await deliveryReaches(api, a2!.id, 'DELIVERED');
    const order = r.received.map((x) => x.body.id);
    expect(order.filter((id) => id !== b1!.id)).toEqual([a1!.id, a1!.id, a2!.id]);
  });

  it('delivers every body so that it fits its contract webhook schema', async () => {
    const r = await receiver();
    const api = await platformWithEndpoint(r.url);
    const platformId = platformIdOf(s.sandbox, api);
    const ctx = s.sandbox.context;
    const id = 'Customer:0190a000-0000-7000-8000-0000000000c1';
    ctx.tx(() => ctx.outbox.append(platformId, 'CUSTOMER.KYC_APPROVED', id, individualCustomer(id)));
    await trigger(api, 'TEST');
    await r.waitFor(2);
    for (const got of r.received) {
      const webhook = WEBHOOK_TYPES[got.body.type];
      expect(webhook).toEqual(expect.any(String));
      assertFitsWebhook(webhook!, got.body);
    }
    const customerEvent = r.received.find((x) => x.body.type === 'CUSTOMER.KYC_APPROVED');
    expect(customerEvent!.body.data).toEqual(individualCustomer(id));
  });

  it('sends again on a new connection when the receiver drops a kept-alive one as the request goes out: no failed attempt', async () => {
    // A receiver without a Keep-Alive hint that answers the first request of each connection and
    // resets the connection when a second one arrives on it.
    let connections = 0;
    const server = createNetServer((socket) => {
      connections += 1;
      let requests = 0;
      let buffer = '';
      socket.on('error', () => undefined);
      socket.on('data', (chunk) => {
        buffer += chunk.toString('latin1');
        for (;;) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return;
          const length = Number(/content-length: *(\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
          if (buffer.length < end + 4 + length) return;
          buffer = buffer.slice(end + 4 + length);
          requests += 1;
          if (requests > 1) {
            socket.resetAndDestroy();
            return;
          }
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      // The configuration's TEST event opens the connection; the next send finds it kept alive.
      const api = await platformWithEndpoint(url);
      const res = await api.post('/sandbox/webhooks/test');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ url, response_status: 200, response_body: 'ok' });
      const tests = (await api.get('/_sandbox/webhooks/deliveries?type=TEST')).body.data as { id: string }[];
      for (const test of tests) {
        const delivery = await deliveryOf(api, test.id);
        expect(delivery.status).toBe('DELIVERED');
        expect(delivery.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['SUCCEEDED']);
      }
      expect(tests).toHaveLength(2);
      expect(connections).toBe(2);
    } finally {
      server.close();
    }
  });

  it('counts a timeout as a failed attempt and retries it', async () => {
    const r = await receiver((n) => (n === 0 ? 'hang' : { status: 200 }));
    const api = await platformWithEndpoint(r.url);
    const event = await trigger(api, 'TEST');
    const failed = await deliveryReaches(api, event.id, 'RETRYING', 1, 10_000);
    expect(failed.attempts[0]).toMatchObject({ outcome: 'FAILED', responseStatus: null, error: 'timed out after 5s' });
    expect(failed.attempts[0].latencyMs).toBeGreaterThanOrEqual(4_900);
    await api.advance(30);
    await deliveryReaches(api, event.id, 'DELIVERED', 2);
  }, 15_000);

  it('marks events of a platform without an endpoint NO_ENDPOINT, and replays them once one is set', async () => {
    const api = await s.api.newPlatform();
    const event = await trigger(api, 'TEST');
    await deliveryReaches(api, event.id, 'NO_ENDPOINT', 0);
    const noEndpoint = await api.post(`/_sandbox/webhooks/deliveries/${event.id}/replay`);
    expect(noEndpoint.status).toBe(400);
    expect(noEndpoint.body.code).toBe('WEBHOOK_ENDPOINT_NOT_SET');

    const r = await receiver();
    await api.patch('/config', { webhookEndpoint: r.url });
    const replay = await api.post(`/_sandbox/webhooks/deliveries/${event.id}/replay`);
    expect(replay.status).toBe(200);
    expect(replay.body.attempt).toMatchObject({ eventId: event.id, outcome: 'SUCCEEDED', responseStatus: 200, state: 'DELIVERED' });
    expect(replay.body.delivery.status).toBe('DELIVERED');
    expect(r.received.map((x) => x.body.id)).toEqual([event.id]);
  });

  it('replays a delivered event with the same id and body', async () => {
    const r = await receiver();
    const api = await platformWithEndpoint(r.url);
    const event = await trigger(api, 'TEST');
    await deliveryReaches(api, event.id, 'DELIVERED', 1);
    const replay = await api.post(`/_sandbox/webhooks/deliveries/${event.id}/replay`);
    expect(replay.status).toBe(200);
    expect(replay.body.delivery.attempts.map((a: any) => a.attempt)).toEqual([1, 2]);
    expect(replay.body.attempt).toMatchObject({ attempt: 2, state: 'DELIVERED' });
    expect(r.received).toHaveLength(2);
    expect(r.received[1]!.raw.equals(r.received[0]!.raw)).toBe(true);
  });
});

describe('inspection', () => {
  it('lists deliveries newest first, filtered by type, resource id, since and status', async () => {
    const r = await receiver();
    const api = await platformWithEndpoint(r.url);
    const platformId = platformIdOf(s.sandbox, api);
    const ctx = s.sandbox.context;
    const a = 'Customer:0190a000-0000-7000-8000-0000000000d1';
    const configTest = await configTestId(api);
    const first = ctx.tx(() => ctx.outbox.append(platformId, 'CUSTOMER.KYC_PENDING', a, individualCustomer(a, 'PENDING')));
    await api.advance(60);
    const since = new Date(s.sandbox.context.clock.now()).toISOString();
    const second = ctx.tx(() => ctx.outbox.append(platformId, 'CUSTOMER.KYC_APPROVED', a, individualCustomer(a)));
    const test = await trigger(api, 'TEST');
    await deliveryReaches(api, test.id, 'DELIVERED');
    await deliveryReaches(api, second.id, 'DELIVERED');

    const all = await api.get('/_sandbox/webhooks/deliveries');
    expect(all.body.data.map((d: any) => d.id)).toEqual([test.id, second.id, first.id, configTest]);
    expect(all.body).toMatchObject({ hasMore: false, totalCount: 4 });
    const byType = await api.get('/_sandbox/webhooks/deliveries?type=CUSTOMER.KYC_APPROVED');
    expect(byType.body.data.map((d: any) => d.id)).toEqual([second.id]);
    const byResource = await api.get(`/_sandbox/webhooks/deliveries?resourceId=${encodeURIComponent(a)}`);
    expect(byResource.body.data.map((d: any) => d.id)).toEqual([second.id, first.id]);
    const bySince = await api.get(`/_sandbox/webhooks/deliveries?since=${encodeURIComponent(since)}`);
    expect(bySince.body.data.map((d: any) => d.id)).toEqual([test.id, second.id]);
    const byStatus = await api.get('/_sandbox/webhooks/deliveries?status=DELIVERED&limit=2');
    expect(byStatus.body).toMatchObject({ hasMore: true, totalCount: 4, nextCursor: expect.any(String) });
    const next = await api.get(`/_sandbox/webhooks/deliveries?status=DELIVERED&limit=2&cursor=${byStatus.body.nextCursor}`);
    expect(next.body.data.map((d: any) => d.id)).toEqual([first.id, configTest]);
    expect(all.body.data[1].data).toEqual(individualCustomer(a));
  });

  it('sends one TEST event when the endpoint is configured or changed, none when it stays the same', async () => {
    const r = await Receiver.start(undefined, 0, { swallowConfigTest: false });
    receivers.push(r);
    const api = await s.api.newPlatform();
    expect((await api.patch('/config', { webhookEndpoint: r.url })).status).toBe(200);
    await r.waitFor(1);
    expect(r.received[0]!.body).toMatchObject({ type: 'TEST', data: {} });
    assertFitsWebhook('test-webhook', r.received[0]!.body);
    await api.patch('/config', { webhookEndpoint: r.url, umaDomain: 'example.com' });
    await api.patch('/config', { webhookEndpoint: `${r.url}?changed=1` });
    await r.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.received.map((x) => x.body.type)).toEqual(['TEST', 'TEST']);
    expect((await api.get('/_sandbox/webhooks/deliveries?type=TEST')).body.totalCount).toBe(2);
  });

  it('rejects bad filters with field errors', async () => {
    const res = await s.api.get('/_sandbox/webhooks/deliveries?type=NOPE&since=yesterday');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.details.errors.map((e: any) => e.field).sort()).toEqual(['since', 'type']);
  });

  it("keeps each platform to its own events (404 for another platform's event)", async () => {
    const a = await s.api.newPlatform();
    const b = await s.api.newPlatform();
    const event = await trigger(a, 'TEST');
    expect((await b.get(`/_sandbox/webhooks/deliveries/${event.id}`)).status).toBe(404);
    expect((await b.post(`/_sandbox/webhooks/deliveries/${event.id}/replay`)).status).toBe(404);
    expect((await b.get('/_sandbox/webhooks/deliveries')).body.totalCount).toBe(0);
  });

  it('streams each attempt on /_sandbox/webhooks/tail', async () => {
    const r = await receiver(() => ({ status: 500 }));
    const api = await platformWithEndpoint(r.url);
    const controller = new AbortController();
    const auth = `Basic ${Buffer.from(`${api.clientId}:${api.clientSecret}`).toString('base64')}`;
    const res = await fetch(`${s.sandbox.origin}/_sandbox/webhooks/tail`, { headers: { Authorization: auth }, signal: controller.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) text += decoder.decode((await reader.read()).value, { stream: true });
    };
    await readUntil('event: ready');
    const event = await trigger(api, 'TEST');
    await readUntil('event: attempt');
    const line = text.split('\n').find((l) => l.startsWith('data: {"kind":"attempt"'))!;
    const activity = JSON.parse(line.slice(6));
    expect(activity).toMatchObject({ kind: 'attempt', type: 'TEST', result: { eventId: event.id, outcome: 'FAILED', responseStatus: 500, state: 'RETRYING' } });
    controller.abort();
  });
});

describe('trigger', () => {
  it('lists every contract event type and whether it can be triggered', async () => {
    const res = await s.api.get('/_sandbox/webhooks/event-types');
    expect(res.status).toBe(200);
    expect(res.body.data).toContainEqual({ type: 'TEST', webhook: 'test-webhook', triggerable: true });
    expect(res.body.data.map((t: any) => t.type)).toEqual(Object.keys(WEBHOOK_TYPES));
  });

  it('rejects a type the contract does not have, names the flow of one sent from its flow only, and answers 501 for one nothing produces', async () => {
    const bad = await s.api.post('/_sandbox/webhooks/trigger', { type: 'CUSTOMER.HAPPY' });
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors[0].field).toBe('type');
    const types = (await s.api.get('/_sandbox/webhooks/event-types')).body.data as { type: string; triggerable: boolean; producedWhen?: string }[];
    const balance = types.find((t) => t.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED')!;
    expect(balance).toMatchObject({ triggerable: false, producedWhen: expect.stringContaining('fund') });
    const flow = await s.api.post('/_sandbox/webhooks/trigger', { type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED' });
    expect(flow.status).toBe(400);
    expect(flow.body.code).toBe('INVALID_INPUT');
    expect(flow.body.message).toContain('cannot be triggered on its own: it is sent when an internal account balance changes');
    expect(flow.body.details.errors[0].field).toBe('type');
    const missing = types.find((t) => !t.triggerable && !t.producedWhen);
    if (missing) {
      const res = await s.api.post('/_sandbox/webhooks/trigger', { type: missing.type });
      expect(res.status).toBe(501);
      expect(res.body.code).toBe('NOT_IMPLEMENTED');
    }
  });
});

describe('reset', () => {
  it('drops the platform events and attempts', async () => {
    const r = await receiver();
    const api = await platformWithEndpoint(r.url);
    const event = await trigger(api, 'TEST');
    await deliveryReaches(api, event.id, 'DELIVERED');
    expect((await api.post('/_sandbox/reset')).status).toBe(200);
    expect((await api.get('/_sandbox/webhooks/deliveries')).body.totalCount).toBe(0);
    expect((await api.get(`/_sandbox/webhooks/deliveries/${event.id}`)).status).toBe(404);
  });
});
