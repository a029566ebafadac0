import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/** The built CLI (`npm test` builds first). */
export const bin = fileURLToPath(new URL('../../bin/service-sandbox.js', import.meta.url));
const READY = /^service-sandbox ready at (http:\/\/127\.0\.0\.1:(\d+)\/2025-10-13)$/m;
export const AUTH = `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`;

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A child process whose output is collected; killed after the test if still running. */
export function spawnCli(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const child = spawn(process.execPath, [bin, ...args], { cwd: cwd ?? mkdtempSync(join(tmpdir(), 'sbx-cli-')), env: { ...process.env, FORCE_COLOR: '0', ...env } });
  children.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  return { child, output };
}

/** Starts a sandbox with the CLI; resolves once it prints the ready line. */
export async function startCli(args: string[] = ['--port', '0', '--memory', '--quiet'], env: Record<string, string> = {}) {
  const { child, output } = spawnCli(args, env);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = READY.exec(output.stdout);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code} before ready: ${output.stderr}`)));
  });
  return { child, output, baseUrl, origin: new URL(baseUrl).origin };
}

/** Waits until `check` holds (polling every 50 ms, up to `ms`). */
export async function until(check: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves with a child's exit code. */
export const exitOf = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

/** Runs the CLI to completion (async, so a sandbox in this process keeps answering). */
export function run(args: string[], input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { child, output } = spawnCli(args);
  if (input !== undefined) child.stdin.end(input);
  else child.stdin.end();
  return exitOf(child).then((status) => ({ status, ...output }));
}

/** Runs the CLI synchronously (only against a sandbox in another process). */
export const runSync = (args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: mkdtempSync(join(tmpdir(), 'sbx-cli-')), env: { ...process.env, FORCE_COLOR: '0' } });

/** A fetch with the default platform's credentials. */
export async function api<T = any>(origin: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { Authorization: AUTH, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}
