// Webhook delivery latency from the state change to a receiver on 127.0.0.1 (median and p99 over 1,000 events).
import { benchWebhooks } from '../webhooks.mjs';

export async function run() {
  const r = await benchWebhooks({ events: 1000 });
  return [
    { name: `webhook delivery latency median (${r.events} events)`, value: r.medianMs, unit: 'ms', target: '', ok: true },
    { name: `webhook delivery latency p99 (${r.events} events)`, value: r.p99Ms, unit: 'ms', target: '', ok: true },
    { name: 'webhook deliveries one after the other', value: r.perSecond, unit: 'events/s', target: '', ok: true },
    { name: 'webhook delivery CPU per event (sandbox + receiver)', value: r.cpuMsPerEvent, unit: 'ms', target: '', ok: true, precision: 3 },
  ];
}
