import { createVerify } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, exitOf, run, spawnCli, startCli, until } from '../helpers/cli.js';

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
      // listen prints an event once the receiver has answered: the print may follow the receipt.
      await until(() => listener.output.stdout.includes(customer.body.id), 5_000, 'the event after the restart printed');
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

describe('webhooks listen: one truth per delivery', () => {
  it('a forwarded event is recorded as delivered, with the attempt and the answer, in webhooks list, the UI and the deliveries list; trigger says where it went', async () => {
    let answer = 200;
    const receiver = createServer((req: IncomingMessage, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answer, { 'Content-Type': 'text/plain' }).end(answer === 200 ? 'thanks' : 'boom'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const forwardTo = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
    try {
      const { origin } = await startCli();
      const listener = spawnCli(['webhooks', 'listen', '--forward-to', forwardTo, '--url', origin]);
      await until(() => listener.output.stdout.includes('listening for webhook events'), 10_000, 'listen to connect');
      const session = /listen session (ListenSession:\S+)\)/.exec(listener.output.stdout)![1]!;

      const triggered = await run(['webhooks', 'trigger', 'TEST', '--url', origin]);
      expect(triggered.status, triggered.stderr).toBe(0);
      const id = /triggered TEST (Webhook:\S+)/.exec(triggered.stdout)![1]!;
      expect(triggered.stdout).toContain(`#1 sent to listen session ${session} -> ${forwardTo} -> 200 in`);
      expect(triggered.stdout).toContain('DELIVERED');
      expect(triggered.stdout).not.toContain('not sent');

      const delivery = (await api(origin, 'GET', `/_sandbox/webhooks/deliveries/${encodeURIComponent(id)}`)).body;
      expect(delivery).toMatchObject({ id, status: 'DELIVERED', deliveredAt: expect.any(String) });
      expect(delivery.attempts).toEqual([
        expect.objectContaining({ attempt: 1, url: forwardTo, outcome: 'SUCCEEDED', responseStatus: 200, error: null, responseExcerpt: 'thanks', listenSession: session }),
      ]);
      const listed = await run(['webhooks', 'list', '--attempts', '--url', origin]);
      expect(listed.stdout).toMatch(new RegExp(`TEST\\s+${id}  DELIVERED  1 attempt, last 200 in \\d+ ms`));
      expect(listed.stdout).toContain(`#1 ${delivery.attempts[0].attemptedAt} listen session ${session} -> ${forwardTo} -> 200 in`);

      // the terminal UI reads the same record
      const { webhooksView } = await import('../../src/tui/views/webhooks.js');
      const { SandboxClient } = await import('../../src/tui/client.js');
      const ui = new SandboxClient({ url: origin, clientId: 'sandbox-client-id', clientSecret: 'sandbox-client-secret' });
      const rows = (await webhooksView.load(ui, { cursor: undefined, limit: 20, order: 'desc', filter: '' })).rows;
      const row = rows.find((r) => r.id === id)!;
      expect(webhooksView.columns.map((column) => column.value(row, ui))).toEqual(expect.arrayContaining(['DELIVERED', '1', '200']));
      const detail = await webhooksView.detail!(ui, row);
      expect(detail.flatMap((section) => section.lines).join('\n')).toMatch(new RegExp(`#1 .* listen \\S+ ${forwardTo} -> 200`));

      // a receiver that fails: recorded FAILED with its answer (a forward is not retried)
      answer = 500;
      const failed = await run(['webhooks', 'trigger', 'TEST', '--url', origin]);
      const failedId = /triggered TEST (Webhook:\S+)/.exec(failed.stdout)![1]!;
      expect(failed.stdout).toContain(`-> ${forwardTo} -> 500 in`);
      expect(failed.stdout).toContain('FAILED');
      const failedDelivery = (await api(origin, 'GET', `/_sandbox/webhooks/deliveries/${encodeURIComponent(failedId)}`)).body;
      expect(failedDelivery).toMatchObject({ status: 'FAILED', attempts: [expect.objectContaining({ responseStatus: 500, error: 'HTTP 500', responseExcerpt: 'boom', listenSession: session })] });
      await until(() => listener.output.stdout.includes('-> 500'), 5_000, 'listen to print the 500');
      expect(listener.output.stdout).not.toContain('did not record');

      // once listen stops, an event is not sent anywhere, and trigger says so
      listener.child.kill('SIGINT');
      await exitOf(listener.child);
      const none = await run(['webhooks', 'trigger', 'TEST', '--url', origin]);
      expect(none.stdout).toContain('not sent: the platform has no webhook endpoint and no `webhooks listen --forward-to` is running');

      // a report must name an open session of the platform, and say what came back
      const bad = await api(origin, 'POST', `/_sandbox/webhooks/deliveries/${encodeURIComponent(id)}/forwarded`, { listenSession: session, responseStatus: 200, latencyMs: 1 });
      expect(bad.status).toBe(409);
      expect(bad.body.message).toContain(`Listen session ${session} is not open`);
      const empty = await api(origin, 'POST', `/_sandbox/webhooks/deliveries/${encodeURIComponent(id)}/forwarded`, { listenSession: session, responseStatus: null, latencyMs: 1 });
      expect(empty.status).toBe(400);
      expect(empty.body.details.errors[0]).toMatchObject({ field: 'responseStatus' });
    } finally {
      receiver.close();
    }
  });

  it('an event whose forward is never reported goes back to NO_ENDPOINT when its listen session ends', async () => {
    const { origin } = await startCli();
    const stream = new AbortController();
    const response = await fetch(`${origin}/_sandbox/webhooks/events/stream?forwardTo=${encodeURIComponent('http://127.0.0.1:9/never')}`, {
      headers: { Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}` },
      signal: stream.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/event: ready\ndata: .*"listenSession":"ListenSession:/);
    const event = (await api(origin, 'POST', '/_sandbox/webhooks/trigger', { type: 'TEST' })).body;
    expect(event.status).toBe('SENDING');
    stream.abort();
    let status = 'SENDING';
    for (let i = 0; i < 100 && status === 'SENDING'; i += 1) {
      status = (await api(origin, 'GET', `/_sandbox/webhooks/deliveries/${encodeURIComponent(event.id)}`)).body.status;
      if (status === 'SENDING') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe('NO_ENDPOINT');
    const refused = await api(origin, 'GET', '/_sandbox/webhooks/events/stream?forwardTo=ftp://x');
    expect(refused.status).toBe(400);
  });
});
