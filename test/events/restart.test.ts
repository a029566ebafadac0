import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { Api } from '../helpers/sandbox.js';
import { Receiver } from './receiver.js';
import { deliveryReaches, verifies } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-webhooks-'));
const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dir, { recursive: true, force: true })];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function receiver(answer: Parameters<typeof Receiver.start>[0]): Promise<Receiver> {
  const r = await Receiver.start(answer);
  cleanups.push(() => r.close());
  return r;
}

async function trigger(api: Api): Promise<string> {
  const res = await api.post('/_sandbox/webhooks/trigger', { type: 'TEST' });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('restart', () => {
  it('resumes pending deliveries after a restart, with the same key and the same event id', async () => {
    const db = join(dir, 'sandbox.db');
    let serve = false;
    const r = await receiver((n: number) => (serve ? { status: 200 } : n === 0 ? 'hang' : { status: 500 }));

    const first = await startSandbox({ db, webhookUrl: r.url });
    const api1 = new Api(first);
    const pem = (await api1.get('/_sandbox/webhooks/public-key')).body.publicKey;
    // One event cut short mid-attempt by the stop, one waiting for its retry job.
    const interrupted = await trigger(api1);
    await r.waitFor(1);
    const retrying = await trigger(api1);
    await deliveryReaches(api1, retrying, 'RETRYING', 1);
    expect((await api1.get(`/_sandbox/webhooks/deliveries/${interrupted}`)).body.status).toBe('SENDING');
    await first.close();

    serve = true;
    const second = await startSandbox({ db, webhookUrl: r.url });
    cleanups.push(() => second.close());
    const api2 = new Api(second);
    expect((await api2.get('/_sandbox/webhooks/public-key')).body.publicKey).toBe(pem);

    // The interrupted attempt is due at once; its interruption is not logged as an attempt.
    const resumed = await deliveryReaches(api2, interrupted, 'DELIVERED', 1);
    expect(resumed.attempts[0]).toMatchObject({ attempt: 1, outcome: 'SUCCEEDED' });
    // The retry job survived in the database and runs when the sandbox clock passes it.
    expect((await api2.get(`/_sandbox/webhooks/deliveries/${retrying}`)).body.status).toBe('RETRYING');
    await api2.advance(30);
    await deliveryReaches(api2, retrying, 'DELIVERED', 2);

    const ids = r.received.map((x) => x.body.id);
    expect(ids.filter((id) => id === interrupted)).toHaveLength(2);
    expect(ids.filter((id) => id === retrying)).toHaveLength(2);
    for (const got of r.received) expect(verifies(pem, got.raw, got.headers['x-service-signature'])).toBe(true);
  });
});
