import { describe, expect, it } from 'vitest';
import { assertErrorEnvelope, assertFitsWebhook } from '../helpers/contract.js';
import { platformService } from '../../src/tenancy/index.js';
import { useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();

function csvForm(text: string): FormData {
  const data = new FormData();
  data.append('file', new Blob([text], { type: 'text/csv' }), 'customers.csv');
  return data;
}

async function uploadCsv(api: Api, text: string) {
  const res = await api.request('POST', '/customers/bulk/csv', { rawBody: csvForm(text) });
  expect(res.status).toBe(202);
  expect(res.body.status).toBe('PENDING');
  return res.body.jobId as string;
}

const header = 'customerType,platformCustomerId,fullName,birthDate,nationality,email,currencies,businessInfo.legalName,businessInfo.country,businessInfo.taxId,businessInfo.incorporatedOn';

describe('bulk CSV customer import', () => {
  it('creates valid rows, reports row-level errors and completes on the sandbox clock', async () => {
    const api = await s.api.newPlatform();
    const csv = [
      header,
      'INDIVIDUAL,bulk-1,Jane Smith,1990-01-15,US,jane@example.com,USD;EUR,,,,',
      'BUSINESS,bulk-2,,,,finance@acme.com,USD,Acme Corporation,US,47-1234567,2018-03-14',
      'INDIVIDUAL,bulk-3,Cher,1990-01-15,US,cher@example.com,USD,,,,',
      'INDIVIDUAL,bulk-1,John Smith,1991-02-16,US,john@example.com,USD,,,,',
      'BUSINESS,,,,,,,Acme,US,12,2018-03-14',
    ].join('\n');
    // a column that would reach Object.prototype is ignored
    const hostile = `${header},__proto__.polluted\nINDIVIDUAL,bulk-9,Eve Smith,1990-01-15,US,eve@example.com,USD,,,,,yes\n`;
    const jobId = await uploadCsv(api, csv);
    const pending = await api.get(`/customers/bulk/jobs/${jobId}`);
    expect(pending.body).toMatchObject({ id: jobId, status: 'PENDING', progress: { total: 5, processed: 0, successful: 0, failed: 0 } });
    await api.advance(1);
    const done = await api.get(`/customers/bulk/jobs/${jobId}`);
    expect(done.body.status).toBe('COMPLETED');
    expect(done.body.progress).toEqual({ total: 5, processed: 5, successful: 2, failed: 3 });
    expect(done.body.completedAt).toBeTruthy();
    expect(done.body.errors.map((e: { correlationId: string; code: string }) => [e.correlationId, e.code])).toEqual([
      ['bulk-3', 'INVALID_INPUT'],
      ['bulk-1', 'CONFLICT'],
      ['row-6', 'INVALID_INPUT'],
    ]);
    expect(done.body.errors[0].details.errors[0].field).toBe('fullName');
    const jane = await api.get('/customers?platformCustomerId=bulk-1');
    expect(jane.body.data[0]).toMatchObject({ fullName: 'Jane Smith', currencies: ['USD', 'EUR'], kycStatus: 'APPROVED' });
    expect((await api.get('/customers')).body.totalCount).toBe(2);
    const event = (await api.get(`/_sandbox/webhooks/deliveries?resourceId=${encodeURIComponent(jobId)}&limit=5`)).body.data;
    expect(event.map((e: { type: string }) => e.type)).toEqual(['BULK_UPLOAD.COMPLETED']);
    assertFitsWebhook('bulk-upload', { id: event[0].id, type: event[0].type, timestamp: event[0].timestamp, data: event[0].data });
    expect(event[0].data.progress.successful).toBe(2);
    const hostileJob = await uploadCsv(api, hostile);
    await api.advance(1);
    expect((await api.get(`/customers/bulk/jobs/${hostileJob}`)).body.progress.successful).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('processes large files in batches while the clock moves', async () => {
    const api = await s.api.newPlatform();
    const rows = Array.from({ length: 120 }, (_, i) => `INDIVIDUAL,many-${i},Person Number${i},1990-01-15,US,p${i}@example.com,USD,,,,`);
    const jobId = await uploadCsv(api, [header, ...rows].join('\r\n'));
    await api.advance(1);
    const partway = await api.get(`/customers/bulk/jobs/${jobId}`);
    expect(partway.body.status).toBe('PROCESSING');
    expect(partway.body.progress.processed).toBe(50);
    // two more ticks (a margin for the time the batches themselves take on the real-time clock)
    await api.advance(2.5);
    const done = await api.get(`/customers/bulk/jobs/${jobId}`);
    expect(done.body).toMatchObject({ status: 'COMPLETED', progress: { total: 120, processed: 120, successful: 120, failed: 0 } });
  });

  it('an unreadable file gives a FAILED job; an unknown job is 404; no file is 400', async () => {
    const api = await s.api.newPlatform();
    const jobId = await uploadCsv(api, 'name;age\n"unterminated,1\n');
    await api.advance(1);
    const failed = await api.get(`/customers/bulk/jobs/${jobId}`);
    expect(failed.body.status).toBe('FAILED');
    expect(failed.body.errors[0].correlationId).toBe('file');
    expect((await api.get(`/_sandbox/webhooks/deliveries?resourceId=${encodeURIComponent(jobId)}`)).body.data[0].type).toBe('BULK_UPLOAD.FAILED');
    const missing = await api.get('/customers/bulk/jobs/BulkCustomerImportJob:nope');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('BULK_UPLOAD_JOB_NOT_FOUND');
    expect((await s.api.newPlatform().then((other) => other.get(`/customers/bulk/jobs/${jobId}`))).status).toBe(404);
    // The contract lists no 400 for this operation; a request without a file is still bad input.
    const noFile = await api.request('POST', '/customers/bulk/csv', { rawBody: new FormData(), unchecked: true });
    expect(noFile.status).toBe(400);
    assertErrorEnvelope(noFile.body, 400);
  });

  it('lists at most 1,000 row errors (progress counts them all); a job stored before row batches still completes', async () => {
    const api = await s.api.newPlatform();
    const bad = Array.from({ length: 1_050 }, (_, i) => `INDIVIDUAL,bad-${i},Bad Row,not-a-date,US,b${i}@example.com,USD,,,,`);
    const jobId = await uploadCsv(api, [header, ...bad].join('\n'));
    await api.advance(25);
    const done = (await api.get(`/customers/bulk/jobs/${jobId}`)).body;
    expect(done).toMatchObject({ status: 'COMPLETED', progress: { total: 1_050, processed: 1_050, successful: 0, failed: 1_050 } });
    expect(done.errors).toHaveLength(1_000);
    expect(done.errors[999].correlationId).toBe('bad-999');

    // A job from before: its rows as JSON objects in the job itself, no columns.
    const ctx = s.sandbox.context;
    const platformId = platformService(ctx).byClientId(api.clientId)!.id;
    const legacyId = ctx.ids.next('BulkCustomerImportJob');
    ctx.db
      .prepare(`INSERT INTO customer_import_jobs (id, platform_id, status, rows, columns, total, processed, successful, failed, errors, created_at, completed_at)
        VALUES (?, ?, 'PENDING', ?, NULL, 2, 0, 0, 0, '[]', ?, NULL)`)
      .run(legacyId, platformId, JSON.stringify([
        { customerType: 'INDIVIDUAL', platformCustomerId: 'legacy-1', fullName: 'Old Row', birthDate: '1990-01-15', nationality: 'US', currencies: 'USD' },
        { customerType: 'INDIVIDUAL', platformCustomerId: 'legacy-2', fullName: 'Bad Date', birthDate: 'not-a-date', nationality: 'US', currencies: 'USD' },
      ]), ctx.clock.iso());
    ctx.tx(() => ctx.scheduler.schedule(platformId, 'customers.bulk-import', 1000, { jobId: legacyId, fail: false }));
    await api.advance(1);
    const legacy = (await api.get(`/customers/bulk/jobs/${legacyId}`)).body;
    expect(legacy).toMatchObject({ status: 'COMPLETED', progress: { total: 2, processed: 2, successful: 1, failed: 1 } });
    expect(legacy.errors.map((e: { correlationId: string }) => e.correlationId)).toEqual(['legacy-2']);
  });
});
