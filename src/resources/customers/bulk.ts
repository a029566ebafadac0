import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse } from 'csv-parse';
import type { SandboxContext } from '../../store/context.js';
import { ApiError, notFound } from '../../core/errors.js';
import { BULK_IMPORT_ROWS_PER_TICK, BULK_IMPORT_TICK_SECONDS } from '../../rules/kyc-rules.js';
import { checkStrings, parseWith } from '../../server/validate.js';
import { platformService, type Platform } from '../../tenancy/index.js';
import { ImportJobRepo, type ImportJobRow } from './repo.js';
import { customerCreate } from './schemas.js';
import { createCustomer } from './service.js';

const JOB_KIND = 'customers.bulk-import';
/** Largest CSV file (the body limit of the operation adds room for the form around it). */
export const MAX_CSV_BYTES = 10 * 1024 * 1024;
/** Most columns a CSV header may have (a customer has a few dozen fields). */
export const MAX_CSV_COLUMNS = 200;
/** Most dot-separated segments in a column name (the deepest customer field has three). */
const MAX_COLUMN_SEGMENTS = 8;
/** Row errors a job's answer lists (its `progress.failed` counts them all). */
export const MAX_IMPORT_ERRORS_LISTED = 1_000;
/** Bytes of row batches written per transaction while an upload is stored, between turns of the event loop. */
const STORE_SLICE_BYTES = 256 * 1024;
/** Columns whose cell is a list, separated by `;` or `|`. */
const LIST_COLUMNS = new Set(['currencies', 'sourceOfFundsCategories', 'sourceOfWealthCategories', 'businessInfo.countriesOfOperation', 'businessInfo.expectedRecipientJurisdictions', 'businessInfo.sourceOfFundsCategories', 'businessInfo.expectedCounterpartyCountries']);

/** Column segments that could reach an object's prototype: ignored. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

interface ImportError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  correlationId: string;
}

const repos = new WeakMap<SandboxContext, ImportJobRepo>();
function repoOf(ctx: SandboxContext): ImportJobRepo {
  let repo = repos.get(ctx);
  if (!repo) {
    repo = new ImportJobRepo(ctx.db);
    repos.set(ctx, repo);
  }
  return repo;
}

/** The contract's `BulkCustomerImportJob`. */
export function presentImportJob(row: ImportJobRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    status: row.status,
    progress: { total: row.total, processed: row.processed, successful: row.successful, failed: row.failed },
    errors: JSON.parse(row.errors) as unknown,
  };
  if (row.completed_at) out.completedAt = row.completed_at;
  return out;
}

/** A CSV row (columns are wire field names, dot paths for nested ones) as a create request. */
function rowToRequest(row: Record<string, string>): Record<string, unknown> {
  const out: Record<string, any> = {};
  for (const [column, raw] of Object.entries(row)) {
    const cell = String(raw ?? '').trim();
    if (cell === '') continue;
    const value: unknown = LIST_COLUMNS.has(column) ? cell.split(/[;|]/).map((v) => v.trim()).filter(Boolean) : cell;
    const keys = column.trim().split('.');
    if (keys.some((key) => UNSAFE_KEYS.has(key) || key === '')) continue;
    let node: Record<string, any> | undefined = out;
    for (const key of keys.slice(0, -1)) {
      node[key] ??= {};
      // A column `a.b` beside a column `a` with a value: the nested one is ignored.
      node = typeof node[key] === 'object' ? (node[key] as Record<string, any>) : undefined;
      if (!node) break;
    }
    if (node) node[keys.at(-1)!] = value;
  }
  return out;
}

/** The most bytes of a CSV parsed at once (under 1 ms of parsing here; 5 ms before the parser is compiled). */
const PARSE_PIECE_BYTES = 8 * 1024;
/** Parsing time after which the reader gives the event loop a turn (other requests, timers). */
const PARSE_TURN_MS = 5;

/** A CSV file read: its header and its rows in batches (JSON arrays of rows of cells), or why it is unreadable. */
export type ReadCsv = { columns: string[]; batches: string[]; total: number } | { error: string };

/**
 * Reads a CSV as it streams in (csv-parse's stream parser, a chunk at a time, so no event-loop
 * turn parses more than a chunk: parsing 10 MB at once took 0.9 s here), keeping its rows in
 * batches of one tick each. The header must name `customerType`, have at most 200 columns, and
 * no column nested more than 8 levels (`a.b.c`).
 */
export async function readCsv(source: AsyncIterable<Buffer | string>): Promise<ReadCsv> {
  const parser = parse({ skip_empty_lines: true, trim: true, bom: true });
  let columns: string[] | undefined;
  const batches: string[] = [];
  let batch: string[][] = [];
  let total = 0;
  let problem: string | undefined;
  let failure: unknown;
  parser.on('error', (error: unknown) => (failure ??= error));
  const take = (record: string[]) => {
    if (problem) return;
    if (!columns) {
      columns = record;
      if (columns.length > MAX_CSV_COLUMNS) problem = `The CSV header has ${columns.length} columns; at most ${MAX_CSV_COLUMNS}.`;
      else if (!columns.includes('customerType')) problem = 'The CSV header has no customerType column.';
      const deep = columns.find((column) => column.split('.').length > MAX_COLUMN_SEGMENTS);
      if (!problem && deep !== undefined) problem = `The CSV column ${deep.slice(0, 100)} nests more than ${MAX_COLUMN_SEGMENTS} levels.`;
      return;
    }
    batch.push(record);
    total += 1;
    if (batch.length === BULK_IMPORT_ROWS_PER_TICK) {
      batches.push(JSON.stringify(batch));
      batch = [];
    }
  };
  const drain = () => {
    for (let record = parser.read() as string[] | null; record !== null; record = parser.read() as string[] | null) take(record);
  };
  // Each chunk is parsed as it arrives; once the file is known to be unreadable the rest is still
  // read (and dropped), so the request's stream ends as it should. A stream's async iterator hands
  // over buffered chunks with its promises already settled, so no turn of the event loop comes
  // between them by itself (an upload arriving faster than it was parsed held the loop 130-350 ms):
  // Buffers are parsed PARSE_PIECE_BYTES at a time, with a turn whenever PARSE_TURN_MS have passed.
  let turnStarted = performance.now();
  const turnIfDue = async () => {
    if (performance.now() - turnStarted < PARSE_TURN_MS) return;
    await nextTurn();
    turnStarted = performance.now();
  };
  for await (const chunk of source) {
    if (failure !== undefined || problem) continue;
    // Strings come in 64 kB slices already (`slices`); a Buffer is split anywhere, as a socket splits it.
    const step = typeof chunk === 'string' ? chunk.length : PARSE_PIECE_BYTES;
    for (let at = 0; at < chunk.length && failure === undefined && !problem; at += step) {
      parser.write(typeof chunk === 'string' ? chunk : chunk.subarray(at, at + step));
      drain();
      await turnIfDue();
    }
  }
  if (failure === undefined && !problem) {
    try {
      parser.end();
      for await (const record of parser as AsyncIterable<string[]>) take(record);
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure instanceof ApiError) throw failure;
  if (failure !== undefined) return { error: `The file is not a readable CSV: ${failure instanceof Error ? failure.message : String(failure)}` };
  if (problem) return { error: problem };
  if (!columns) return { columns: [], batches: [], total: 0 };
  if (batch.length) batches.push(JSON.stringify(batch));
  return { columns, batches, total };
}

/** A text in 64 kB pieces, one per turn of the event loop (a CSV sent as a text field). */
export async function* slices(text: string): AsyncIterable<string> {
  for (let at = 0; at < text.length; at += 64 * 1024) {
    yield text.slice(at, at + 64 * 1024);
    await nextTurn();
  }
}

/**
 * `POST /customers/bulk/csv`: stores the rows and starts a job that creates them on the sandbox
 * clock, a batch per tick, each row validated like a single create. A file that is not a
 * readable CSV still gives a job, which fails with the reason (the contract has no 400 here).
 * The rows are stored a slice at a time between turns of the event loop (writing 10 MB at once
 * took 40-100 ms); the job, the only thing anyone sees, appears in one transaction once they are
 * all in (batches without a job, from an upload stopped half-way, are removed at the next start).
 */
export async function startImport(ctx: SandboxContext, platform: Platform, csv: ReadCsv | undefined): Promise<ImportJobRow> {
  if (!csv) {
    throw new ApiError(400, 'INVALID_INPUT', 'Send the CSV as the multipart part "file".', { errors: [{ field: 'file', constraint: { required: true }, message: 'Attach a CSV file.' }] });
  }
  const parseError = 'error' in csv ? csv.error : undefined;
  const id = ctx.ids.next('BulkCustomerImportJob');
  const repo = repoOf(ctx);
  const batches = 'batches' in csv ? csv.batches : [];
  let next = 0;
  const storeUpTo = (bytes: number) => {
    let stored = 0;
    while (next < batches.length && stored < bytes) {
      repo.insertBatch(id, platform.id, next, batches[next]!);
      stored += batches[next]!.length;
      next += 1;
    }
  };
  while (batches.length - next > 0) {
    ctx.tx(() => storeUpTo(STORE_SLICE_BYTES));
    if (next < batches.length) await nextTurn();
  }
  return ctx.tx(() => {
    const row: ImportJobRow = {
      id,
      platform_id: platform.id,
      status: 'PENDING',
      rows: '[]',
      columns: JSON.stringify('columns' in csv ? csv.columns : []),
      total: parseError ? 0 : (csv as { total: number }).total,
      processed: 0,
      successful: 0,
      failed: 0,
      errors: JSON.stringify(parseError ? [{ code: 'INVALID_INPUT', message: parseError, correlationId: 'file' }] : []),
      created_at: ctx.clock.iso(),
      completed_at: null,
    };
    repo.insert(row);
    ctx.scheduler.schedule(platform.id, JOB_KIND, BULK_IMPORT_TICK_SECONDS * 1000, { jobId: row.id, fail: parseError !== undefined });
    return row;
  });
}

/** The file-level errors of a job (its `errors` column), then its row errors, at most `MAX_IMPORT_ERRORS_LISTED`. */
function errorsOf(ctx: SandboxContext, row: ImportJobRow): unknown[] {
  const own = (JSON.parse(row.errors) as unknown[]).slice(0, MAX_IMPORT_ERRORS_LISTED);
  const room = MAX_IMPORT_ERRORS_LISTED - own.length;
  return room > 0 ? [...own, ...repoOf(ctx).errors(row.id, room).map((error) => JSON.parse(error) as unknown)] : own;
}

/** `GET /customers/bulk/jobs/{jobId}`. */
export function getImportJob(ctx: SandboxContext, platform: Platform, jobId: string): ImportJobRow {
  const row = repoOf(ctx).byId(platform.id, jobId);
  if (!row) throw notFound('BULK_UPLOAD_JOB_NOT_FOUND', `No bulk import job ${jobId} on this platform.`);
  // As presented: the errors listed, file-level and row errors together.
  return { ...row, errors: JSON.stringify(errorsOf(ctx, row)) };
}

function tick(ctx: SandboxContext, platformId: string, jobId: string, fail: boolean): void {
  const platform = platformService(ctx).byId(platformId);
  const repo = repoOf(ctx);
  const job = platform ? repo.byId(platformId, jobId) : undefined;
  if (!platform || !job || job.status === 'COMPLETED' || job.status === 'FAILED') return;
  if (fail) {
    const failed: ImportJobRow = { ...job, status: 'FAILED', completed_at: ctx.clock.iso() };
    repo.update(failed);
    ctx.outbox.append(platformId, 'BULK_UPLOAD.FAILED', jobId, presentImportJob({ ...failed, errors: JSON.stringify(errorsOf(ctx, failed)) }));
    return;
  }
  const next: ImportJobRow = { ...job, status: 'PROCESSING' };
  const batchIndex = Math.floor(job.processed / BULK_IMPORT_ROWS_PER_TICK);
  // A job from before batches keeps its rows in `rows` (and its row errors in `errors`).
  const legacy = job.columns === null;
  const legacyRows = legacy ? (JSON.parse(job.rows) as Record<string, string>[]) : [];
  const legacyErrors = legacy ? (JSON.parse(job.errors) as ImportError[]) : [];
  const columns = legacy ? [] : (JSON.parse(job.columns!) as string[]);
  const batch = legacy
    ? legacyRows.slice(job.processed, job.processed + BULK_IMPORT_ROWS_PER_TICK)
    : (JSON.parse(repo.batch(job.id, batchIndex) ?? '[]') as string[][]).map((cells) => Object.fromEntries(columns.map((column, i) => [column, cells[i] ?? ''])));
  for (const [offset, raw] of batch.entries()) {
    const index = job.processed + offset;
    const correlationId = raw.platformCustomerId?.trim() || `row-${index + 2}`;
    try {
      const request = rowToRequest(raw);
      checkStrings(request, `row ${index + 2}`);
      createCustomer(ctx, platform, parseWith(customerCreate, request, `row ${index + 2}`));
      next.successful += 1;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      next.failed += 1;
      const entry: ImportError = { code: error.code, message: error.message, details: { row: index + 2, ...error.details }, correlationId };
      if (legacy) legacyErrors.push(entry);
      else repo.appendError(job.id, platformId, JSON.stringify(entry));
    }
    next.processed += 1;
  }
  if (legacy) next.errors = JSON.stringify(legacyErrors);
  else repo.deleteBatch(job.id, batchIndex);
  if (next.processed >= job.total || batch.length === 0) {
    next.status = 'COMPLETED';
    next.completed_at = ctx.clock.iso();
    repo.update(next);
    ctx.outbox.append(platformId, 'BULK_UPLOAD.COMPLETED', jobId, presentImportJob({ ...next, errors: JSON.stringify(errorsOf(ctx, next)) }));
    return;
  }
  repo.update(next);
  ctx.scheduler.schedule(platformId, JOB_KIND, BULK_IMPORT_TICK_SECONDS * 1000, { jobId, fail: false });
}

/** Registers the import job kind (and removes row batches an upload stopped half-way left). */
export function registerImportJobs(ctx: SandboxContext): void {
  repoOf(ctx).removeOrphanBatches();
  ctx.scheduler.register(JOB_KIND, (job) => {
    const payload = job.payload as { jobId: string; fail: boolean };
    tick(ctx, job.platformId, payload.jobId, payload.fail);
  });
}

/** Deletes a platform's import jobs (sandbox reset). */
export function removePlatformImports(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}
