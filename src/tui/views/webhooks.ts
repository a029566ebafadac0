import { shortId, shortTime, statusColor, whenCell } from '../format.js';
import { contractPage, fieldsOf, filterHintOf, filterQuery, type ResourceView } from './types.js';

const FILTERS = { type: 'type', status: 'status', resource: 'resourceId', since: 'since' };

/** A delivery as `GET /_sandbox/webhooks/deliveries` returns it. */
export interface DeliveryRow {
  id: string;
  type: string;
  timestamp: string;
  resourceId: string | null;
  data: unknown;
  status: string;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  attempts: { attempt: number; attemptedAt: string; url: string; outcome: string; responseStatus: number | null; error: string | null; latencyMs: number; responseExcerpt: string | null; listenSession?: string | null }[];
}

const lastAnswer = (d: DeliveryRow) => {
  const last = d.attempts.at(-1);
  if (!last) return '-';
  return last.responseStatus === null ? (last.error ?? 'no answer') : String(last.responseStatus);
};

/** Webhook deliveries, newest first, live: status, attempts, last answer, next retry; detail shows the signed body. */
export const webhooksView: ResourceView<DeliveryRow> = {
  id: 'webhooks',
  title: 'Webhooks',
  columns: [
    { header: 'TIME', width: 20, value: (d) => whenCell(d.timestamp) },
    { header: 'TYPE', width: 0, value: (d) => d.type },
    { header: 'STATUS', width: 10, value: (d) => d.status, color: (d) => statusColor(d.status) },
    { header: 'TRIES', width: 5, value: (d) => String(d.attempts.length), align: 'right' },
    { header: 'ANSWER', width: 8, value: lastAnswer },
    { header: 'NEXT RETRY', width: 14, value: (d) => shortTime(d.nextAttemptAt) },
  ],
  filterHint: filterHintOf(FILTERS),
  defaultOrder: 'desc',
  load: (client, { cursor, limit, filter }) => contractPage<DeliveryRow>(client, '/webhooks/deliveries', cursor, limit, filterQuery(filter, FILTERS), 'control'),
  key: (d) => d.id,
  idPrefix: 'Webhook',
  fetch: (client, id) => client.control<DeliveryRow>('GET', `/webhooks/deliveries/${encodeURIComponent(id)}`),
  detail: async (client, row) => {
    const d = await client.control<DeliveryRow>('GET', `/webhooks/deliveries/${encodeURIComponent(row.id)}`);
    // The exact bytes that are signed and sent (the envelope), pretty-printed.
    const body = JSON.stringify({ id: d.id, type: d.type, timestamp: d.timestamp, data: d.data }, null, 2);
    return [
      { title: 'Delivery', lines: [`${'event'.padEnd(14)} ${d.id}`, `${'type'.padEnd(14)} ${d.type}`, `${'status'.padEnd(14)} ${d.status}`, `${'resource'.padEnd(14)} ${d.resourceId ?? '-'}`, `${'next attempt'.padEnd(14)} ${d.nextAttemptAt ? whenCell(d.nextAttemptAt) : '-'}`, `${'delivered at'.padEnd(14)} ${d.deliveredAt ? whenCell(d.deliveredAt) : '-'}`] },
      { title: 'Data', lines: d.data && typeof d.data === 'object' ? fieldsOf(d.data as Record<string, unknown>) : [String(d.data)] },
      {
        title: `Attempts (${d.attempts.length})`,
        lines: d.attempts.map((a) => `#${a.attempt} ${shortTime(a.attemptedAt)} ${a.listenSession ? `listen ${shortId(a.listenSession)} ` : ''}${a.url} -> ${a.responseStatus ?? a.error ?? '?'} in ${Math.round(a.latencyMs)} ms${a.responseExcerpt ? `  ${JSON.stringify(a.responseExcerpt.slice(0, 60))}` : ''}`),
      },
      { title: 'Signed body (the bytes X-Service-Signature and X-Grid-Signature sign)', lines: body.split('\n') },
    ];
  },
  actions: [
    {
      key: 'r',
      label: 'replay the delivery now',
      run: async (client, row) => {
        const result = await client.control<{ attempt: { responseStatus: number | null; error: string | null; state: string } }>(
          'POST',
          `/webhooks/deliveries/${encodeURIComponent(row.id)}/replay`,
        );
        return `replayed ${shortId(row.id)}: ${result.attempt.responseStatus ?? result.attempt.error} (${result.attempt.state})`;
      },
    },
  ],
  refreshOn: (change) => change.kind === 'event' || change.kind === 'delivery' || change.kind === 'clock',
};
