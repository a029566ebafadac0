// Webhook delivery latency: from the state change (the outbox append, committed) to the
// receiver having the whole request, over `events` events delivered one after the other to a
// real receiver on 127.0.0.1, with a file database. Wired into `npm run bench` by bench/run.mjs.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../dist/index.js';

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * Delivers `events` events (after a short warm-up) and returns the latency median and p99 in ms,
 * the events delivered per second and the CPU per event in ms (this process: the sandbox in
 * process and the receiver, which does little).
 */
export async function benchWebhooks({ events = 1000, warmup = 50 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bench-webhooks-'));
  const waiting = new Map();
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200).end();
      const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      waiting.get(id)?.(at);
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${receiver.address().port}/webhooks`;
  const sandbox = await startSandbox({ db: join(dir, 'sandbox.db'), webhookUrl: url });
  try {
    const auth = `Basic ${Buffer.from(`${sandbox.clientId}:${sandbox.clientSecret}`).toString('base64')}`;
    const reset = await fetch(`${sandbox.origin}/_sandbox/reset`, { method: 'POST', headers: { Authorization: auth } });
    const { platformId } = await reset.json();
    const ctx = sandbox.context;
    const latencies = [];
    let cpuStart;
    let timeStart;
    for (let i = 0; i < warmup + events; i += 1) {
      const resourceId = `Customer:bench-${i % 10}`;
      let received;
      const arrived = new Promise((resolve) => (received = resolve));
      if (i === warmup) {
        cpuStart = process.cpuUsage();
        timeStart = performance.now();
      }
      const started = performance.now();
      const event = ctx.tx(() => ctx.outbox.append(platformId, 'TEST', resourceId, {}));
      waiting.set(event.id, received);
      const at = await arrived;
      waiting.delete(event.id);
      if (i >= warmup) latencies.push(at - started);
    }
    const elapsedMs = performance.now() - timeStart;
    const cpu = process.cpuUsage(cpuStart);
    latencies.sort((a, b) => a - b);
    const round = (ms) => Math.round(ms * 100) / 100;
    return {
      medianMs: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      events,
      perSecond: Math.round((events * 1000) / elapsedMs),
      cpuMsPerEvent: Math.round(((cpu.user + cpu.system) / 1000 / events) * 1000) / 1000,
    };
  } finally {
    await sandbox.close();
    await new Promise((resolve) => receiver.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchWebhooks());
}
