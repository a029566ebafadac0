import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/service-sandbox.js', import.meta.url));
const demo = fileURLToPath(new URL('../../fixtures/demo.json', import.meta.url));
const READY = /^service-sandbox ready at (http:\/\/127\.0\.0\.1:\d+)\/2025-10-13$/m;
const AUTH = `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`;
const children: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

const tempDir = () => mkdtempSync(join(tmpdir(), 'service-sandbox-tui-cli-'));

/** Starts the CLI; resolves with the origin at the ready line, or with the exit code and stderr if it stops first. */
function start(args: string[], cwd = tempDir()): Promise<{ origin?: string; code?: number | null; stderr: string; child: ChildProcessWithoutNullStreams }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, FORCE_COLOR: '0' } });
  children.push(child);
  let out = '';
  let err = '';
  return new Promise((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = READY.exec(out);
      if (match) resolve({ origin: match[1]!, stderr: err, child });
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stderr: err, child }));
  });
}

const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: tempDir(), env: { ...process.env, FORCE_COLOR: '0' } });
const get = async (origin: string, path: string) => (await fetch(`${origin}${path}`, { headers: { Authorization: AUTH } })).text();

describe('start --fixtures, load, export, import', () => {
  it('start --fixtures fixtures/demo.json: GET /customers lists the fixture customers', async () => {
    const { origin } = await start(['--port', '0', '--memory', '--quiet', '--fixtures', demo]);
    expect(origin).toBeDefined();
    const customers = JSON.parse(await get(origin!, '/2025-10-13/customers')) as { data: { platformCustomerId: string }[] };
    expect(customers.data.map((c) => c.platformCustomerId)).toEqual(['demo-jane', 'demo-marco', 'demo-held', 'demo-acme']);
  });

  it('start --fixtures run twice on one database file: the second says the file holds them already and what to do', async () => {
    const dir = tempDir();
    const db = join(dir, 'sandbox.db');
    const first = await start(['--port', '0', '--db', db, '--quiet', '--fixtures', demo], dir);
    expect(first.origin).toBeDefined();
    first.child.kill('SIGTERM');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const second = await start(['--port', '0', '--db', db, '--quiet', '--fixtures', demo], dir);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('demo.json: platforms[0].customers[0] (jane): POST /customers answered 409');
    expect(second.stderr).toContain(`${db} already holds what an earlier start made: add --memory for a fresh sandbox each time, or delete that file`);
  });

  it('a broken fixture exits non-zero naming the entry, and leaves the database untouched', async () => {
    const dir = tempDir();
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'platforms:\n  - customers:\n      - ref: ok\n        customerType: INDIVIDUAL\n        fullName: Good Person\n        birthDate: "1990-01-15"\n        nationality: US\n      - ref: bad\n        customerType: INDIVIDUAL\n        fullName: Bad Person\n        birthDate: "1990-01-15"\n        nationality: USA\n');
    const db = join(dir, 'sandbox.db');
    const failed = await start(['--port', '0', '--db', db, '--quiet', '--fixtures', broken], dir);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain('broken.yaml: platforms[0].customers[1] (bad), field nationality');
    const again = await start(['--port', '0', '--db', db, '--quiet'], dir);
    expect(JSON.parse(await get(again.origin!, '/2025-10-13/customers')).data).toEqual([]);
  });

  it('load applies a file to a running sandbox; export then import into a fresh sandbox gives the same GETs', async () => {
    const source = await start(['--port', '0', '--memory', '--quiet']);
    const loaded = run(['load', demo, '--url', source.origin!]);
    expect(loaded.stderr).toBe('');
    expect(loaded.stdout).toMatch(/loaded .*demo\.json: 2 platform\(s\), 8 customer\(s\)/);
    const again = run(['load', demo, '--url', source.origin!]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('demo.json: platforms[0].customers[0] (jane)');
    expect(run(['clock', 'advance', '90s', '--url', source.origin!]).status).toBe(0);

    const file = join(tempDir(), 'state.json');
    const exported = run(['export', file, '--url', source.origin!]);
    expect(exported.stdout).toMatch(/^exported \d+ rows of \d+ tables at sandbox time .* to /);
    expect(JSON.parse(readFileSync(file, 'utf8')).format).toBe('service-sandbox-snapshot');

    const target = await start(['--port', '0', '--memory', '--quiet']);
    const imported = run(['import', file, '--url', target.origin!]);
    expect(imported.stdout).toMatch(/^imported \d+ rows from /);
    for (const path of ['/2025-10-13/customers', '/2025-10-13/config', '/2025-10-13/transactions', '/2025-10-13/customers/external-accounts', '/2025-10-13/platform/internal-accounts']) {
      expect(await get(target.origin!, path), path).toBe(await get(source.origin!, path));
    }
    const clocks = await Promise.all([get(source.origin!, '/_sandbox/clock'), get(target.origin!, '/_sandbox/clock')]).then((c) => c.map((t) => JSON.parse(t) as { offsetSeconds: number; pendingJobs: number }));
    expect(Math.round(clocks[1]!.offsetSeconds)).toBe(Math.round(clocks[0]!.offsetSeconds));
    expect(clocks[1]!.pendingJobs).toBe(clocks[0]!.pendingJobs);
    expect(run(['import', join(tempDir(), 'missing.json'), '--url', target.origin!]).stderr).toContain('no such file');
  });

  it('ui and start --ui without a terminal print a clear error and exit non-zero', () => {
    const result = run(['ui', '--url', 'http://127.0.0.1:9']);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('needs an interactive terminal');
    expect(result.stderr).toContain('customers list');
    const started = run(['start', '--ui', '--port', '0', '--memory']);
    expect(started.status).not.toBe(0);
    expect(started.stderr).toContain('needs an interactive terminal');
  });
});
