import type { SandboxContext } from '../store/context.js';
import { ApiError, ErrorCode } from '../core/errors.js';
import type { Area } from '../resources/area.js';
import { platformKeySql, platformService, type Platform } from '../tenancy/index.js';
import { resetPlatformData } from './reset.js';
import { webhookDelivery } from '../events/index.js';
import { COVERAGE_TABLE, coverageRecorder } from '../store/coverage.js';

/** The format tag and version of a snapshot file. */
export const SNAPSHOT_FORMAT = 'service-sandbox-snapshot';
export const SNAPSHOT_VERSION = 1;

/** One table's rows: column names once, then one array of values per row. */
export interface SnapshotTable {
  columns: string[];
  rows: unknown[][];
}

/**
 * A platform's whole state: every row of every table that carries a `platform_id` column
 * (discovered from the schema, so tables added by later areas are included without a change
 * here), the platform's own settings and configuration, the clock, and pending jobs (which are
 * rows of `jobs`, due times kept relative to the snapshot's clock).
 */
export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  platformId: string;
  clock: { now: string; nowMs: number; offsetMs: number };
  platform: { regulated: number; settings: string; config_id: string; config: string; created_at: string; updated_at: string };
  tables: Record<string, SnapshotTable>;
}

interface ColumnInfo {
  name: string;
  type: string;
  pk: number;
  /** Set on every column of a table that holds its platform as `platform` (row id). */
  byRowid?: true;
}

/**
 * Tables with a `platform_id` that are not the platform's state: integration coverage counts what
 * the platform's client did, since its last reset or import (an import starts it afresh, as a
 * reset does). A snapshot leaves them out; one that carries them (made before) has them ignored.
 */
const NOT_STATE = new Set([COVERAGE_TABLE]);

/**
 * Tables that triggers write (the kept list counts of src/core/list-query.ts): derived from the
 * other tables, so a snapshot leaves them out and the triggers rebuild them as rows come back.
 */
function derivedTables(ctx: SandboxContext): Set<string> {
  const triggers = ctx.db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger'`).all() as { sql: string | null }[];
  const out = new Set<string>();
  for (const { sql } of triggers) {
    const body = String(sql ?? '').replace(/^[\s\S]*?\bBEGIN\b/i, '');
    for (const match of body.matchAll(/\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|UPDATE|DELETE\s+FROM)\s+["`]?(\w+)/gi)) out.add(match[1]!);
  }
  return out;
}

/**
 * Platform-owned tables and their columns, read from the schema (derived tables and the areas'
 * derived columns left out): a table with a `platform_id`, or one that holds its platform as an
 * INTEGER `platform` (the platform's row id, a compact key; internal accounts), which a snapshot
 * carries without that column, and an import sets to the importing platform's.
 */
function platformTables(ctx: SandboxContext, areas: readonly Area[]): Map<string, ColumnInfo[]> {
  const names = ctx.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[];
  const derived = derivedTables(ctx);
  const derivedColumns = (table: string) => new Set(areas.flatMap((area) => area.derived?.columns[table] ?? []));
  const out = new Map<string, ColumnInfo[]>();
  for (const { name } of names) {
    if (derived.has(name) || NOT_STATE.has(name)) continue;
    const skipped = derivedColumns(name);
    const columns = (ctx.db.prepare(`SELECT name, type, pk FROM pragma_table_info(?)`).all(name) as ColumnInfo[]).filter((c) => !skipped.has(c.name));
    if (columns.some((c) => c.name === 'platform_id')) out.set(name, columns);
    else if (columns.some((c) => c.name === 'platform' && c.type.toUpperCase() === 'INTEGER')) out.set(name, columns.filter((c) => c.name !== 'platform').map((c) => ({ ...c, byRowid: true })));
  }
  return out;
}

/** A table whose rows hold their platform as its row id (`platform`), not its id. */
const byRowid = (columns: ColumnInfo[]) => columns.some((c) => c.byRowid === true);
/** The rows of one platform: by its id, or by its row id. */
const platformWhere = (columns: ColumnInfo[]) => (byRowid(columns) ? `platform = ${platformKeySql('?')}` : 'platform_id = ?');

/** A column SQLite fills in itself (an INTEGER PRIMARY KEY is the rowid): left out on import, rows kept in order. */
const isRowid = (column: ColumnInfo, columns: ColumnInfo[]) =>
  column.pk === 1 && columns.filter((c) => c.pk > 0).length === 1 && column.type.toUpperCase() === 'INTEGER';

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

const encode = (value: unknown) => (Buffer.isBuffer(value) ? { $base64: value.toString('base64') } : value);
const decode = (value: unknown) =>
  value !== null && typeof value === 'object' && '$base64' in value ? Buffer.from(String((value as { $base64: string }).$base64), 'base64') : value;

/** Reads a platform's whole state, in one read transaction. */
export function exportSnapshot(ctx: SandboxContext, areas: readonly Area[], platform: Platform): Snapshot {
  return ctx.tx(() => {
    const tables: Record<string, SnapshotTable> = {};
    for (const [name, columns] of platformTables(ctx, areas)) {
      const keys = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
      // Insertion order where SQLite keeps one (rowid tables), else the primary key (WITHOUT ROWID).
      const withoutRowid = /WITHOUT\s+ROWID/i.test(String((ctx.db.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(name) as { sql: string }).sql));
      const order = withoutRowid ? keys.map((c) => quote(c.name)).join(', ') : 'rowid';
      const statement = ctx.db.prepare(`SELECT ${columns.map((c) => quote(c.name)).join(', ')} FROM ${quote(name)} WHERE ${platformWhere(columns)} ORDER BY ${order}`).raw(true);
      const rows = (statement.all(platform.id) as unknown[][]).map((row) => row.map(encode));
      tables[name] = { columns: columns.map((c) => c.name), rows };
    }
    const row = ctx.db.prepare('SELECT regulated, settings, config_id, config, created_at, updated_at FROM platforms WHERE id = ?').get(platform.id) as Snapshot['platform'];
    const nowMs = ctx.clock.now();
    return {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      platformId: platform.id,
      clock: { now: new Date(nowMs).toISOString(), nowMs, offsetMs: ctx.clock.offset },
      platform: row,
      tables,
    };
  });
}

const invalid = (message: string, details?: Record<string, unknown>) => new ApiError(400, ErrorCode.INVALID_INPUT, message, details);

/** Checks the shape of a parsed snapshot file; a wrong one is a 400 naming what is wrong. */
export function checkSnapshot(input: unknown): Snapshot {
  const s = input as Partial<Snapshot> | null;
  if (!s || typeof s !== 'object' || s.format !== SNAPSHOT_FORMAT) {
    throw invalid(`This is not a service-sandbox snapshot (expected "format": "${SNAPSHOT_FORMAT}").`);
  }
  if (s.version !== SNAPSHOT_VERSION) throw invalid(`Snapshot version ${String(s.version)} is not supported (this sandbox reads version ${SNAPSHOT_VERSION}).`);
  if (typeof s.platformId !== 'string' || !s.clock || typeof s.clock.nowMs !== 'number' || typeof s.clock.offsetMs !== 'number') {
    throw invalid('The snapshot has no platformId or clock.');
  }
  if (!s.platform || typeof s.platform.config !== 'string' || !s.tables || typeof s.tables !== 'object') {
    throw invalid('The snapshot has no platform or tables.');
  }
  for (const [name, table] of Object.entries(s.tables)) {
    if (!Array.isArray(table?.columns) || !Array.isArray(table.rows)) throw invalid(`Table ${name} of the snapshot has no columns or rows.`);
  }
  return s as Snapshot;
}

/**
 * Replaces the calling platform's state with a snapshot's, in one transaction: the platform's
 * data is wiped (as `reset` does), every table's rows inserted under the calling platform's id
 * (its credentials stay), its settings and configuration restored, the clock offset moved
 * forward to the snapshot's (the clock never goes back) and each pending job kept as far ahead
 * of the clock as it was. The platform keeps its credentials and takes the snapshot's platform
 * id unless another platform here has it. Returns the platform id and each table's row count.
 */
export function importSnapshot(
  ctx: SandboxContext,
  areas: readonly Area[],
  platform: Platform,
  snapshot: Snapshot,
): { platformId: string; tables: Record<string, number> } {
  const known = platformTables(ctx, areas);
  // A derived column in a snapshot (hand-made, or from a sandbox that kept it) is ignored: `refill` computes it.
  const derivedColumn = (table: string, column: string) => areas.some((area) => area.derived?.columns[table]?.includes(column));
  const tables = Object.entries(snapshot.tables).filter(([name]) => !NOT_STATE.has(name));
  for (const [name, table] of tables) {
    const columns = known.get(name);
    if (!columns) throw invalid(`The snapshot has a table ${name} this sandbox does not have (a newer version made it?).`, { table: name });
    // An earlier sandbox's snapshot of a table now keyed by the platform's row id has its `platform_id`: the import sets the platform.
    const missing = table.columns.filter((c) => !columns.some((k) => k.name === c) && !derivedColumn(name, c) && !(c === 'platform_id' && byRowid(columns)));
    if (missing.length) throw invalid(`Table ${name} of the snapshot has columns this sandbox does not have: ${missing.join(', ')}.`, { table: name });
  }
  // The calling platform takes the snapshot's id when no other platform here has it (a fresh
  // sandbox), so every GET is byte for byte the same; else references are moved to its own id.
  const from = snapshot.platformId;
  const taken = from !== platform.id && ctx.db.prepare('SELECT 1 FROM platforms WHERE id = ?').get(from) !== undefined;
  const to = taken ? platform.id : from;
  // Ids of a platform are `Platform:<uuid>`: a plain replacement moves references, in JSON too.
  const move = (value: unknown) => (typeof value === 'string' && from !== to && value.includes(from) ? value.split(from).join(to) : value);
  const counts: Record<string, number> = {};
  // The clock moves forward to the snapshot's offset (never back), once the rows are in; a still
  // clock (`--clock-start`), which real time does not move, to the snapshot's time.
  const ahead = Math.max(0, ctx.clock.still ? snapshot.clock.nowMs - ctx.clock.now() : snapshot.clock.offsetMs - ctx.clock.offset);
  const restore = () =>
    ctx.tx(() => {
      resetPlatformData(ctx, areas, platform);
      if (to !== platform.id) {
        ctx.db.prepare('UPDATE platforms SET id = ? WHERE id = ?').run(to, platform.id);
        // Tables keyed by the platform's row id keep it: the row is renamed in place.
        for (const [name, columns] of known) if (!byRowid(columns)) ctx.db.prepare(`UPDATE ${quote(name)} SET platform_id = ? WHERE platform_id = ?`).run(to, platform.id);
        platformService(ctx).invalidate();
      }
      const shift = ctx.clock.now() + ahead - snapshot.clock.nowMs;
      for (const [name, table] of tables) {
        const columns = known.get(name)!;
        const keep = table.columns
          .map((c, i) => ({ c, i, info: columns.find((k) => k.name === c) }))
          .filter((column): column is { c: string; i: number; info: ColumnInfo } => column.info !== undefined && !isRowid(column.info, columns));
        const names = keep.map(({ c }) => quote(c));
        const slots = keep.map(() => '?');
        if (byRowid(columns)) {
          names.push('platform');
          slots.push(platformKeySql('?'));
        }
        const insert = ctx.db.prepare(`INSERT INTO ${quote(name)} (${names.join(', ')}) VALUES (${slots.join(', ')})`);
        const dueAt = name === 'jobs' ? keep.findIndex(({ c }) => c === 'due_at') : -1;
        for (const row of table.rows) {
          const values = keep.map(({ i }) => move(decode(row[i])));
          if (byRowid(columns)) values.push(to);
          if (dueAt >= 0) values[dueAt] = Number(values[dueAt]) + shift;
          insert.run(values);
        }
        counts[name] = table.rows.length;
      }
      for (const area of areas) area.derived?.refill(ctx, to);
      ctx.db
        .prepare('UPDATE platforms SET regulated = ?, settings = ?, config_id = ?, config = ?, created_at = ?, updated_at = ? WHERE id = ?')
        .run(snapshot.platform.regulated, snapshot.platform.settings, snapshot.platform.config_id, move(snapshot.platform.config), snapshot.platform.created_at, snapshot.platform.updated_at, to);
      // Through the service, so its caches of this platform are dropped.
      const restored = JSON.parse(snapshot.platform.settings) as Platform['settings'];
      platformService(ctx).updateSettings({ ...platform, id: to }, restored);
      ctx.db.prepare('UPDATE platforms SET updated_at = ? WHERE id = ?').run(snapshot.platform.updated_at, to);
    });
  try {
    restore();
  } catch (error) {
    platformService(ctx).invalidate();
    const code = (error as { code?: string }).code ?? '';
    if (!code.startsWith('SQLITE_CONSTRAINT')) throw error;
    // Resource ids are unique across the sandbox: the snapshot's rows are still here under another platform.
    throw new ApiError(
      409,
      ErrorCode.CONFLICT,
      `The snapshot's rows collide with rows already in this sandbox (${(error as Error).message}); import it into a fresh sandbox, or reset the platform it was taken from first.`,
    );
  }
  // The platform's coverage starts afresh (memory and rows), under its old id and its new one.
  coverageRecorder(ctx).resetPlatform(platform.id);
  if (to !== platform.id) coverageRecorder(ctx).resetPlatform(to);
  if (ahead > 0) ctx.clock.moveTo(ctx.clock.now() + ahead);
  // Deliveries that were in flight when the snapshot was taken are due again (as after a restart).
  ctx.tx(() => ctx.db.prepare(`UPDATE events SET delivery_state = 'PENDING' WHERE substr(platform_id, -8) = substr(@to, -8) AND platform_id = @to AND delivery_state = 'SENDING'`).run({ to }));
  try {
    webhookDelivery(ctx).kick();
  } catch {
    // no delivery worker in this context
  }
  // Due jobs of the restored world run at once; the others wait on the timer.
  ctx.scheduler.advance(0);
  return { platformId: to, tables: counts };
}
