import { parse } from 'csv-parse/sync';
import type { SandboxContext } from '../../context.js';
import { ApiError, notFound } from '../../core/errors.js';
import { BULK_IMPORT_ROWS_PER_TICK, BULK_IMPORT_TICK_SECONDS } from '../../sandbox/kyc-rules.js';
import { parseWith } from '../../server/validate.js';
import { platformService, type Platform } from '../platform/index.js';
import { ImportJobRepo, type ImportJobRow } from './repo.js';
import { customerCreate } from './schemas.js';
import { createCustomer } from './service.js';

const JOB_KIND = 'customers.bulk-import';
const MAX_CSV_BYTES = 10 * 1024 * 1024;
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
    const cell = raw.trim();
    if (cell === '') continue;
    const value: unknown = LIST_COLUMNS.has(column) ? cell.split(/[;|]/).map((v) => v.trim()).filter(Boolean) : cell;
    const keys = column.trim().split('.');
    if (keys.some((key) => UNSAFE_KEYS.has(key) || key === '')) continue;
    let node = out;
    for (const key of keys.slice(0, -1)) node = node[key] ??= {};
    node[keys.at(-1)!] = value;
  }
  return out;
}

/**
 * `POST /customers/bulk/csv`: stores the rows and starts a job that creates them on the sandbox
 * clock, a batch per tick, each row validated like a single create. A file that is not a
 * readable CSV still gives a job, which fails with the reason (the contract has no 400 here).
 */
export function startImport(ctx: SandboxContext, platform: Platform, csv: Uint8Array | undefined): ImportJobRow {
  if (!csv) {
    throw new ApiError(400, 'INVALID_INPUT', 'Send the CSV as the multipart part "file".', { errors: [{ field: 'file', constraint: { required: true }, message: 'Attach a CSV file.' }] });
  }
  let rows: Record<string, string>[] = [];
  let parseError: string | undefined;
  if (csv.byteLength > MAX_CSV_BYTES) {
    parseError = 'The CSV file is larger than 10 MB.';
  } else {
    try {
      rows = parse(Buffer.from(csv), { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
      if (rows.length > 0 && !('customerType' in rows[0]!)) parseError = 'The CSV header has no customerType column.';
    } catch (error) {
      parseError = `The file is not a readable CSV: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return ctx.tx(() => {
    const row: ImportJobRow = {
      id: ctx.ids.next('BulkCustomerImportJob'),
      platform_id: platform.id,
      status: 'PENDING',
      rows: JSON.stringify(parseError ? [] : rows),
      total: parseError ? 0 : rows.length,
      processed: 0,
      successful: 0,
      failed: 0,
      errors: JSON.stringify(parseError ? [{ code: 'INVALID_INPUT', message: parseError, correlationId: 'file' }] : []),
      created_at: ctx.clock.iso(),
      completed_at: null,
    };
    repoOf(ctx).insert(row);
    ctx.scheduler.schedule(platform.id, JOB_KIND, BULK_IMPORT_TICK_SECONDS * 1000, { jobId: row.id, fail: parseError !== undefined });
    return row;
  });
}

/** `GET /customers/bulk/jobs/{jobId}`. */
export function getImportJob(ctx: SandboxContext, platform: Platform, jobId: string): ImportJobRow {
  const row = repoOf(ctx).byId(platform.id, jobId);
  if (!row) throw notFound('BULK_UPLOAD_JOB_NOT_FOUND', `No bulk import job ${jobId} on this platform.`);
  return row;
}

function tick(ctx: SandboxContext, platformId: string, jobId: string, fail: boolean): void {
  const platform = platformService(ctx).byId(platformId);
  const repo = repoOf(ctx);
  const job = platform ? repo.byId(platformId, jobId) : undefined;
  if (!platform || !job || job.status === 'COMPLETED' || job.status === 'FAILED') return;
  if (fail) {
    const failed: ImportJobRow = { ...job, status: 'FAILED', completed_at: ctx.clock.iso() };
    repo.update(failed);
    ctx.outbox.append(platformId, 'BULK_UPLOAD.FAILED', jobId, presentImportJob(failed));
    return;
  }
  const rows = JSON.parse(job.rows) as Record<string, string>[];
  const errors = JSON.parse(job.errors) as ImportError[];
  const next: ImportJobRow = { ...job, status: 'PROCESSING' };
  const end = Math.min(rows.length, job.processed + BULK_IMPORT_ROWS_PER_TICK);
  for (let index = job.processed; index < end; index += 1) {
    const raw = rows[index]!;
    const correlationId = raw.platformCustomerId?.trim() || `row-${index + 2}`;
    try {
      createCustomer(ctx, platform, parseWith(customerCreate, rowToRequest(raw), `row ${index + 2}`));
      next.successful += 1;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      next.failed += 1;
      errors.push({ code: error.code, message: error.message, details: { row: index + 2, ...error.details }, correlationId });
    }
    next.processed += 1;
  }
  next.errors = JSON.stringify(errors);
  if (next.processed >= rows.length) {
    next.status = 'COMPLETED';
    next.completed_at = ctx.clock.iso();
    repo.update(next);
    ctx.outbox.append(platformId, 'BULK_UPLOAD.COMPLETED', jobId, presentImportJob(next));
    return;
  }
  repo.update(next);
  ctx.scheduler.schedule(platformId, JOB_KIND, BULK_IMPORT_TICK_SECONDS * 1000, { jobId, fail: false });
}

/** Registers the import job kind. */
export function registerImportJobs(ctx: SandboxContext): void {
  ctx.scheduler.register(JOB_KIND, (job) => {
    const payload = job.payload as { jobId: string; fail: boolean };
    tick(ctx, job.platformId, payload.jobId, payload.fail);
  });
}

/** Deletes a platform's import jobs (sandbox reset). */
export function removePlatformImports(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}
