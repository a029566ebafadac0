import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/service-sandbox.js', import.meta.url));
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const READY = /^service-sandbox ready at (http:\/\/127\.0\.0\.1:(\d+)\/2025-10-13)$/m;
const children: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts the CLI and resolves with its base URL once it prints the ready line. */
function startCli(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcessWithoutNullStreams; baseUrl: string; stdout: () => string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'service-sandbox-cli-'));
  const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env, FORCE_COLOR: '0' } });
  children.push(child);
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = READY.exec(out);
      if (match) resolve({ child, baseUrl: match[1]!, stdout: () => out });
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`exited ${code} before ready: ${err}`)));
  });
}

const exitOf = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

const run = (args: string[], cwd?: string) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: cwd ?? mkdtempSync(join(tmpdir(), 'service-sandbox-cli-')), env: { ...process.env, FORCE_COLOR: '0' } });

describe('service-sandbox CLI', () => {
  it('start prints exactly one ready line, the credentials, serves, and exits 0 on SIGTERM', async () => {
    const { child, baseUrl, stdout } = await startCli(['--port', '0', '--memory']);
    expect(stdout().match(/ready at/g)).toHaveLength(1);
    expect(stdout()).toContain('sandbox-client-id');
    const res = await fetch(`${baseUrl}/config`, { headers: { Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}` } });
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
  });

  it('takes credentials from the environment and does not print a secret it was given', async () => {
    const { child, baseUrl, stdout } = await startCli(['start', '--port', '0', '--memory', '--quiet'], {
      SERVICE_SANDBOX_CLIENT_ID: 'ci-platform',
      SERVICE_SANDBOX_CLIENT_SECRET: 'ci-secret-value',
    });
    expect(stdout()).not.toContain('ci-secret-value');
    const ok = await fetch(`${baseUrl}/config`, { headers: { Authorization: `Basic ${Buffer.from('ci-platform:ci-secret-value').toString('base64')}` } });
    expect(ok.status).toBe(200);
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });

  it('keeps data in the --db file across restarts, and clock/reset act on the running sandbox', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-db-'));
    const db = join(dir, 'data', 'sandbox.db');
    const auth = { Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`, 'Content-Type': 'application/json' };
    const first = await startCli(['--port', '0', '--db', db, '--quiet']);
    await fetch(`${first.baseUrl}/config`, { method: 'PATCH', headers: auth, body: JSON.stringify({ umaDomain: 'kept.example.com' }) });
    const origin = new URL(first.baseUrl).origin;
    const advanced = run(['clock', 'advance', '6m', '--url', origin]);
    expect(advanced.status).toBe(0);
    expect(advanced.stdout).toMatch(/^sandbox clock is now \d{4}-/);
    first.child.kill('SIGTERM');
    expect(await exitOf(first.child)).toBe(0);

    const second = await startCli(['--port', '0', '--db', db, '--quiet']);
    const config = (await (await fetch(`${second.baseUrl}/config`, { headers: auth })).json()) as { umaDomain: string };
    expect(config.umaDomain).toBe('kept.example.com');
    const reset = run(['reset', '--url', new URL(second.baseUrl).origin]);
    expect(reset.status).toBe(0);
    const after = (await (await fetch(`${second.baseUrl}/config`, { headers: auth })).json()) as { umaDomain: string };
    expect(after.umaDomain).not.toBe('kept.example.com');
    second.child.kill('SIGTERM');
    expect(await exitOf(second.child)).toBe(0);
  });

  it('a port in use is one clear line on stderr and a non-zero exit', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = run(['--port', String(port), '--memory']);
      expect(result.status).not.toBe(0);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/port \d+ .*already in use/);
      expect(result.stdout).not.toContain('ready at');
    } finally {
      blocker.close();
    }
  });

  it('an unwritable database path, an unknown flag or a bad port: one line, non-zero, no stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-bad-'));
    writeFileSync(join(dir, 'file'), 'x');
    for (const args of [['--db', join(dir, 'file', 'sandbox.db'), '--port', '0'], ['--no-such-flag'], ['--port', 'eighty']]) {
      const result = run(args);
      expect(result.status, args.join(' ')).not.toBe(0);
      const lines = result.stderr.trim().split('\n');
      expect(lines.length, result.stderr).toBeLessThanOrEqual(2);
      expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/);
    }
  });

  it('--version and --help answer as expected', () => {
    const v = run(['--version']);
    expect(v.status).toBe(0);
    expect(v.stdout.trim()).toBe(version);
    const help = run(['--help']);
    expect(help.status).toBe(0);
    for (const word of ['start', 'clock', 'reset']) expect(help.stdout).toContain(word);
    const startHelp = run(['start', '--help']);
    for (const flag of ['--port', '--host', '--db', '--memory', '--client-id', '--client-secret', '--log-format', '--quiet']) expect(startHelp.stdout).toContain(flag);
  });

  it('a command against no running sandbox says what to do', () => {
    const result = run(['reset', '--url', 'http://127.0.0.1:1']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no sandbox is answering at http://127.0.0.1:1');
  });

  it('fund and accounts list act on a running sandbox and print balances', async () => {
    const { child, baseUrl } = await startCli(['--port', '0', '--memory', '--quiet']);
    const url = new URL(baseUrl).origin;
    const listed = run(['accounts', 'list', '--url', url]);
    expect(listed.status).toBe(0);
    const usdLine = listed.stdout.split('\n').find((line) => line.includes(' USD'))!;
    const accountId = usdLine.split(/\s+/)[0]!;
    expect(accountId).toMatch(/^InternalAccount:/);
    const funded = run(['fund', accountId, '12345', '--minor', '--url', url]);
    expect(funded.status).toBe(0);
    expect(funded.stdout).toContain('balance 123.45 USD');
    expect(run(['accounts', 'list', '--url', url]).stdout).toContain('123.45 USD');
    // major units by default, with the currency's decimals
    expect(run(['fund', accountId, '0.55', '--url', url]).stdout).toContain('balance 124.00 USD');
    const tooPrecise = run(['fund', accountId, '12.505', '--url', url]);
    expect(tooPrecise.status).toBe(1);
    expect(tooPrecise.stderr).toContain('USD has 2');
    const bad = run(['fund', accountId, '12.5', '--minor', '--url', url]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('smallest unit');
    const unknown = run(['fund', 'InternalAccount:nope', '100', '--url', url]);
    expect(unknown.stderr).toContain('404 REFERENCE_NOT_FOUND');
    expect(unknown.stderr).toContain('they look like InternalAccount:019a4f2c-');
    const auth = { Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`, 'Content-Type': 'application/json' };
    const customer = (await (await fetch(`${baseUrl}/customers`, { method: 'POST', headers: auth, body: JSON.stringify({ customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace', currencies: ['USD'] }) })).json()) as { id: string };
    const mine = run(['accounts', 'list', '--customer', customer.id, '--url', url]);
    expect(mine.stdout.trim().split('\n')).toHaveLength(2);
    expect(mine.stdout).toContain(customer.id);
    // a customer plus a currency, in major units
    const byCustomer = run(['fund', customer.id, '12.50', 'USD', '--url', url]);
    expect(byCustomer.status, byCustomer.stderr).toBe(0);
    expect(byCustomer.stdout).toContain('balance 12.50 USD');
    const noEur = run(['fund', customer.id, '1', 'EUR', '--url', url]);
    expect(noEur.status).toBe(1);
    expect(noEur.stderr).toContain('has no EUR internal account (its currencies: USD)');
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
  });
});
