import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, exitOf, run, startCli } from '../helpers/cli.js';
import { startSandbox } from '../../src/index.js';

/** `start --import`, `start --export-on-exit` and the same flags of `exec`: round trips through snapshot files. */

const dir = () => mkdtempSync(join(tmpdir(), 'sbx-snap-'));
const person = (id: string) => ({ customerType: 'INDIVIDUAL', platformCustomerId: id, fullName: 'Ann Lee', birthDate: '1990-01-15', nationality: 'US', currencies: ['USD'] });

/** A node script that creates a customer through the sandbox exec started, then exits with `status`. */
const createCustomer = (id: string, status = 0) =>
  `const auth='Basic '+Buffer.from(process.env.SERVICE_SANDBOX_CLIENT_ID+':'+process.env.SERVICE_SANDBOX_CLIENT_SECRET).toString('base64');` +
  `fetch(process.env.SERVICE_SANDBOX_BASE_URL+'/customers',{method:'POST',headers:{Authorization:auth,'Content-Type':'application/json'},body:JSON.stringify(${JSON.stringify(person(id))})})` +
  `.then(r=>{if(r.status!==201)process.exit(9);process.exit(${status})})`;

describe('start --export-on-exit, then start --import', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('a %s stop writes the default platform\'s snapshot; a new sandbox importing it answers every GET byte for byte', async (signal) => {
    const file = join(dir(), 'state.json');
    const first = await startCli(['--port', '0', '--memory', '--quiet', '--export-on-exit', file]);
    const created = await api(first.origin, 'POST', '/2025-10-13/customers', person('ann'));
    expect(created.status).toBe(201);
    await api(first.origin, 'POST', '/_sandbox/clock/advance', { seconds: 3600 });
    const before = await fetch(`${first.origin}/2025-10-13/customers/${created.body.id}`, { headers: { Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}` } }).then((r) => r.text());
    expect(existsSync(file)).toBe(false);
    first.child.kill(signal);
    expect(await exitOf(first.child)).toBe(0);
    const snapshot = JSON.parse(readFileSync(file, 'utf8'));
    expect(snapshot.format).toBe('service-sandbox-snapshot');
    expect(snapshot.tables.customers.rows).toHaveLength(1);
    expect(snapshot.clock.offsetMs).toBeGreaterThan(3_590_000);

    const second = await startCli(['--port', '0', '--memory', '--import', file]);
    expect(second.output.stdout).toContain(`imported       ${file}`);
    const after = await fetch(`${second.origin}/2025-10-13/customers/${created.body.id}`, { headers: { Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}` } }).then((r) => r.text());
    expect(after).toBe(before);
    // The clock moved forward to the snapshot's offset.
    expect((await api<{ offsetSeconds: number }>(second.origin, 'GET', '/_sandbox/clock')).body.offsetSeconds).toBeGreaterThan(3590);
    second.child.kill('SIGTERM');
    expect(await exitOf(second.child)).toBe(0);
  });

  it('the same file for both: a restart carries on where the last run stopped', async () => {
    const file = join(dir(), 'state.json');
    const one = await startCli(['--port', '0', '--memory', '--quiet', '--export-on-exit', file]);
    expect((await api(one.origin, 'POST', '/2025-10-13/customers', person('one'))).status).toBe(201);
    one.child.kill('SIGTERM');
    await exitOf(one.child);
    const two = await startCli(['--port', '0', '--memory', '--quiet', '--import', file, '--export-on-exit', file]);
    expect((await api(two.origin, 'POST', '/2025-10-13/customers', person('two'))).status).toBe(201);
    two.child.kill('SIGTERM');
    await exitOf(two.child);
    const rows = JSON.parse(readFileSync(file, 'utf8')).tables.customers as { columns: string[]; rows: unknown[][] };
    const at = rows.columns.indexOf('platform_customer_id');
    expect(rows.rows.map((row) => row[at])).toEqual(['one', 'two']);
  });

  it('a missing or broken --import file stops the start with one line naming it', async () => {
    const folder = dir();
    const missing = await run(['--port', '0', '--memory', '--import', join(folder, 'nope.json')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr.trim()).toBe(`service-sandbox: --import ${join(folder, 'nope.json')}: no such file`);
    const broken = join(folder, 'broken.json');
    writeFileSync(broken, JSON.stringify({ hello: 'world' }));
    const wrong = await run(['--port', '0', '--memory', '--import', broken]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain(`--import ${broken}: This is not a service-sandbox snapshot`);
  });
});

describe('exec --import / --export-on-exit', () => {
  it('exports when the command ends, whatever its status, and keeps that status', async () => {
    const folder = dir();
    const start = join(folder, 'start.json');
    const one = await run(['exec', '--export-on-exit', start, '--', process.execPath, '-e', createCustomer('first')]);
    expect(one.status, one.stderr).toBe(0);
    const end = join(folder, 'end.json');
    const two = await run(['exec', '--import', start, '--export-on-exit', end, '--', process.execPath, '-e', createCustomer('second', 3)]);
    expect(two.status, two.stderr).toBe(3);
    const table = JSON.parse(readFileSync(end, 'utf8')).tables.customers as { columns: string[]; rows: unknown[][] };
    const at = table.columns.indexOf('platform_customer_id');
    expect(table.rows.map((row) => row[at])).toEqual(['first', 'second']);
  });

  it('a file that cannot be written fails the run, naming it', async () => {
    const target = join(dir(), 'no-such-folder', 'state.json');
    const result = await run(['exec', '--export-on-exit', target, '--', process.execPath, '-e', 'process.exit(0)']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`--export-on-exit ${target}: cannot write it`);
  });
});

describe('a still clock on a database file', () => {
  it('keeps its start instant: a restart with the same one carries on, another one (or none before) is refused', async () => {
    const db = join(dir(), 'sandbox.db');
    const one = await startSandbox({ db, clockStart: '2030-01-01T00:00:00Z', seed: 7 });
    const first = one.context.ids.next('Test');
    await one.close();
    const two = await startSandbox({ db, clockStart: '2030-01-01T00:00:00Z', seed: 7 });
    expect(two.context.clock.iso()).toBe('2030-01-01T00:00:00.000Z');
    // The clock stood still, yet ids of the new start sort after the old ones (and are not the
    // same: each start of a seeded database draws from streams of its own).
    const next = two.context.ids.next('Test');
    expect(next > first).toBe(true);
    expect(next.slice(-12)).not.toBe(first.slice(-12));
    await two.advanceClock(60);
    await two.close();
    const three = await startSandbox({ db });
    expect(three.context.clock.iso()).toBe('2030-01-01T00:01:00.000Z');
    expect(three.context.clock.still).toBe(true);
    await three.close();
    await expect(startSandbox({ db, clockStart: '2031-01-01T00:00:00Z' })).rejects.toThrow(/--clock-start 2031-01-01T00:00:00.000Z does not match .*whose clock started at 2030-01-01T00:00:00.000Z/);
    const other = join(dir(), 'real.db');
    await (await startSandbox({ db: other })).close();
    await expect(startSandbox({ db: other, clockStart: '2030-01-01T00:00:00Z' })).rejects.toThrow(/needs a fresh database: .* already holds a sandbox on real time/);
    await expect(startSandbox({ clockStart: 'tomorrow' })).rejects.toThrow(/--clock-start tomorrow is not accepted/);
  });
});
