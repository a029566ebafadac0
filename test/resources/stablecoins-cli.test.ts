import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Runs the built CLI (`npm test` builds first) against a sandbox it starts itself.
const bin = fileURLToPath(new URL('../../bin/service-sandbox.js', import.meta.url));
const READY = /^service-sandbox ready at (http:\/\/127\.0\.0\.1:(\d+)\/2025-10-13)$/m;
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function start(): Promise<string> {
  const child = spawn(process.execPath, [bin, '--port', '0', '--memory', '--quiet'], { cwd: mkdtempSync(join(tmpdir(), 'sbx-stablecoin-cli-')), env: { ...process.env, FORCE_COLOR: '0' } });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = READY.exec(out);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}`)));
  });
}

const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });

describe('stablecoins CLI', () => {
  it('requests enablement and sets the operator status of a stablecoin', async () => {
    const baseUrl = await start();
    const origin = new URL(baseUrl).origin;
    const headers = {
      Authorization: `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`,
      'Content-Type': 'application/json',
    };
    const post = async (path: string, body: unknown) =>
      (await (await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': randomUUID() }, body: JSON.stringify(body) })).json()) as { id: string };
    await post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: 'cli-key', apiClientSecret: 'cli-secret' });
    const coin = await post('/stablecoins', { providerTokenIdentifier: 'SBC', networkTokenIdentifier: 'btkn-cli', network: 'SPARK' });
    expect(run(['stablecoins', 'request-enablement', coin.id, '--url', origin]).stdout).toContain('PENDING_APPROVAL');
    expect(run(['stablecoins', 'set-status', coin.id, 'enabled', '--url', origin]).stdout).toContain('ENABLED');
    const bad = run(['stablecoins', 'set-status', coin.id, 'PENDING_APPROVAL', '--url', origin]);
    expect(bad.status).not.toBe(0);
    const again = run(['stablecoins', 'request-enablement', coin.id, '--url', origin]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain('STABLECOIN_SERVICE_ENABLEMENT_NOT_REQUESTABLE');
  });
});
