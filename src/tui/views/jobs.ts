import { shortTime } from '../format.js';
import { fieldsOf, type ResourceView } from './types.js';

/** A pending job as `GET /_sandbox/jobs` returns it. */
export interface JobRow {
  id: string;
  kind: string;
  dueAt: string;
  dueInSeconds: number;
  payload: unknown;
}

const inWords = (seconds: number) => {
  if (seconds <= 0) return 'due';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  return h ? `${h}h${String(m).padStart(2, '0')}m` : m ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
};

/** The clock's pending jobs of the platform, by due time (the status line has the time and offset). */
export const jobsView: ResourceView<JobRow> = {
  id: 'jobs',
  title: 'Clock & jobs',
  columns: [
    { header: 'DUE (SANDBOX)', width: 14, value: (j) => shortTime(j.dueAt) },
    { header: 'IN', width: 8, value: (j) => inWords(j.dueInSeconds), align: 'right' },
    { header: 'KIND', width: 26, value: (j) => j.kind },
    { header: 'PAYLOAD', width: 0, value: (j) => (j.payload && typeof j.payload === 'object' ? Object.entries(j.payload as Record<string, unknown>).map(([k, v]) => `${k}=${typeof v === 'object' ? '{…}' : String(v)}`).join(' ') : String(j.payload ?? '')) },
  ],
  load: async (client, { cursor, limit }) => {
    const page = await client.control<{ data: JobRow[]; nextCursor?: string; totalCount: number }>(
      'GET',
      `/jobs?limit=${Math.min(limit, 100)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    return { rows: page.data, nextCursor: page.nextCursor, total: page.totalCount };
  },
  key: (j) => j.id,
  detail: async (_client, row) => [{ title: 'Job', lines: fieldsOf(row as unknown as Record<string, unknown>) }],
};
