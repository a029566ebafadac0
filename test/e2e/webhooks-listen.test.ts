import { createVerify } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, exitOf, spawnCli, startCli, until } from '../helpers/cli.js';

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('webhooks listen', () => {
  it('--forward-to delivers each event signed and prints the answer, and reconnects across a sandbox restart', async () => {
    const received: { body: string; signature: string; grid: string }[] = [];
    const receiver = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ body, signature: String(req.headers['x-service-signature']), grid: String(req.headers['x-grid-signature']) });
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const forwardTo = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
    const port = String(await freePort());
    const db = join(mkdtempSync(join(tmpdir(), 'sbx-listen-')), 'sandbox.db');
    try {
      const first = await startCli(['--port', port, '--db', db, '--quiet']);
      const { origin } = first;
      const publicKey = (await api<{ publicKey: string }>(origin, 'GET', '/_sandbox/webhooks/public-key')).body.publicKey;
      const listener = spawnCli(['webhooks', 'listen', '--forward-to', forwardTo, '--url', origin]);
      await until(() => listener.output.stdout.includes('listening for webhook events'), 10_000, 'listen to connect');

      const one = await api(origin, 'POST', '/_sandbox/webhooks/trigger', { type: 'TEST' });
      expect(one.status).toBe(201);
      await until(() => received.length === 1, 10_000, 'the first forwarded event');
      await until(() => listener.output.stdout.includes('-> 202'), 5_000, 'the answer printed');
      expect(JSON.parse(received[0]!.body)).toMatchObject({ id: one.body.id, type: 'TEST' });
      const { v, s } = JSON.parse(received[0]!.signature) as { v: string; s: string };
      expect(v).toBe('1');
      expect(createVerify('SHA256').update(received[0]!.body).verify(publicKey, s, 'base64')).toBe(true);
      // Forwarded under both names, as the sandbox delivers it.
      expect(received[0]!.grid).toBe(received[0]!.signature);
      expect(listener.output.stdout).toMatch(/\(sandbox \d{4}-\d{2}-\d{2}T[^)]+\)\s+TEST/);

      first.child.kill('SIGTERM');
      expect(await exitOf(first.child)).toBe(0);
      await until(() => listener.output.stdout.includes('stopped; waiting for it to come back'), 10_000, 'listen to notice');
      const second = await startCli(['--port', port, '--db', db, '--quiet']);
      await until(() => listener.output.stdout.includes('reconnected'), 10_000, 'listen to reconnect');
      const customer = await api(origin, 'POST', '/2025-10-13/customers', { customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace' });
      const two = await api(origin, 'POST', '/_sandbox/webhooks/trigger', { type: 'CUSTOMER.KYC_APPROVED', resourceId: customer.body.id });
      await until(() => received.some((r) => r.body.includes(two.body.id)), 10_000, 'the event after the restart');
      const after = received.find((r) => r.body.includes(two.body.id))!;
      expect(JSON.parse(after.body).data.id).toBe(customer.body.id);
      expect(listener.output.stdout).toContain(customer.body.id);
      second.child.kill('SIGTERM');
      listener.child.kill('SIGINT');
    } finally {
      receiver.close();
    }
  });

  it('--json prints one object per event; tail --payload prints the event data', async () => {
    const { origin, child } = await startCli(['--port', '0', '--memory', '--quiet', '--webhook-url', 'http://127.0.0.1:9/unreachable']);
    const listener = spawnCli(['webhooks', 'listen', '--json', '--url', origin]);
    const tail = spawnCli(['webhooks', 'tail', '--payload', '--url', origin]);
    await until(() => tail.output.stdout.includes('tailing webhook deliveries'), 10_000, 'tail to connect');
    await new Promise((resolve) => setTimeout(resolve, 300)); // listen --json prints nothing when it connects
    const customer = await api(origin, 'POST', '/2025-10-13/customers', { customerType: 'INDIVIDUAL', fullName: 'Grace Hopper' });
    await api(origin, 'POST', '/_sandbox/webhooks/trigger', { type: 'CUSTOMER.KYC_APPROVED', resourceId: customer.body.id });
    await until(() => listener.output.stdout.trim().length > 0, 10_000, 'a JSON line');
    const line = JSON.parse(listener.output.stdout.trim().split('\n')[0]!);
    expect(line).toMatchObject({ type: 'CUSTOMER.KYC_APPROVED', resourceId: customer.body.id, data: { id: customer.body.id } });
    expect(line.receivedAt).toMatch(/^\d{4}-/);
    expect(line.sandboxTime).toMatch(/^\d{4}-/);
    await until(() => tail.output.stdout.includes('"fullName": "Grace Hopper"'), 10_000, 'tail to print the payload');
    listener.child.kill('SIGINT');
    tail.child.kill('SIGINT');
    child.kill('SIGTERM');
  });
});
