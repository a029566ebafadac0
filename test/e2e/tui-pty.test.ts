import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, startCli } from '../helpers/cli.js';
import { machineTool, tmuxOnSocket } from '../helpers/machine.js';

/**
 * Drives `service-sandbox ui` in a real pseudo-terminal (tmux, on a server of its own) against
 * a running sandbox: a customer created over HTTP appears, `a` approves it, and the status turns
 * APPROVED on screen and in the API.
 */
const tmuxPath = machineTool('tmux', ['/usr/bin/tmux', '/usr/local/bin/tmux'], 'apt-get install -y tmux');
const socket = `sandbox-tui-${process.pid}-${randomUUID().slice(0, 8)}`;
const session = 'ui';

const tmux = tmuxOnSocket(tmuxPath, socket);

// The sandbox (started by startCli) is stopped after the test by the helper.
afterAll(() => {
  if (tmuxPath) tmux('kill-server');
});

/** Polls the pane until `pattern` shows (bounded), returning the screen. */
async function screenShows(pattern: RegExp, timeoutMs = 30_000, target = session): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let screen = '';
  while (Date.now() < deadline) {
    screen = tmux('capture-pane', '-p', '-t', target).stdout;
    if (pattern.test(screen)) return screen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Say what the pane was doing: a blank screen alone does not tell a slow start from a crash.
  const pane = tmux('list-panes', '-t', target, '-F', 'dead=#{pane_dead} status=#{pane_dead_status} command=#{pane_current_command}');
  throw new Error(`the screen never showed ${pattern} in ${timeoutMs} ms (pane: ${pane.stdout.trim() || pane.stderr.trim()}):\n${screen}`);
}

describe.skipIf(!tmuxPath)('service-sandbox ui in a real terminal (tmux)', () => {
  it('a customer created over HTTP appears; a approves its KYC: APPROVED on screen and in the API', async () => {
    const { origin } = await startCli();
    const admin = `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`;
    const clientId = `tui-${randomUUID().slice(0, 8)}`;
    const clientSecret = `secret-${randomUUID()}`;
    const platform = await fetch(`${origin}/_sandbox/platforms`, {
      method: 'POST',
      headers: { Authorization: admin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ clientId, clientSecret, regulated: false }),
    });
    expect(platform.status).toBe(201);
    const auth = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;

    const command = `CI=true NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} ui --url ${origin} --client-id ${clientId} --client-secret ${clientSecret}`;
    const started = tmux('new-session', '-d', '-s', session, '-x', '100', '-y', '30', command);
    expect(started.status, started.stderr).toBe(0);
    await screenShows(/1 Customers .*\n[\s\S]*nothing yet/);
    await screenShows(/live \|/);

    // The `001` suffix keeps an individual PENDING (sandbox-rules.md, customers at creation).
    const created = await fetch(`${origin}/2025-10-13/customers`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ customerType: 'INDIVIDUAL', fullName: 'Terminal Tester 001', birthDate: '1990-01-15', nationality: 'US' }),
    });
    expect(created.status).toBe(201);
    const customer = (await created.json()) as { id: string; kycStatus: string };
    if (customer.kycStatus === 'APPROVED') {
      await fetch(`${origin}/_sandbox/customers/${encodeURIComponent(customer.id)}/kyc-decision`, {
        method: 'POST',
        headers: { Authorization: auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ decision: 'HOLD' }),
      });
    }
    const before = await screenShows(/> Terminal Tester 001\s+INDIVIDUAL (PENDING|HOLD|UNVERIFIED)/);
    expect(before).not.toMatch(/Terminal Tester 001\s+INDIVIDUAL APPROVED/);

    tmux('send-keys', '-t', session, 'a');
    await screenShows(/Terminal Tester 001\s+INDIVIDUAL APPROVED/);
    const check = await fetch(`${origin}/2025-10-13/customers/${encodeURIComponent(customer.id)}`, { headers: { Authorization: auth } });
    expect(((await check.json()) as { kycStatus: string }).kycStatus).toBe('APPROVED');

    // q quits and the terminal is given back (the shell's command ends, so the pane's session goes).
    tmux('send-keys', '-t', session, 'q');
    const deadline = Date.now() + 5000;
    while (tmux('has-session', '-t', session).status === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(tmux('has-session', '-t', session).status).not.toBe(0);

    // Ctrl-C: the UI ends and the terminal is restored (the shell that ran it prints on the
    // normal screen again, not the UI's alternate screen).
    const again = tmux('new-session', '-d', '-s', session, '-x', '80', '-y', '24', `${command}; echo ui-exited-$?; sleep 30`);
    expect(again.status, again.stderr).toBe(0);
    await screenShows(/Terminal Test.*APPROVED/);
    tmux('send-keys', '-t', session, 'C-c');
    const after = await screenShows(/ui-exited-\d+/);
    expect(after).not.toContain('1 Customers');
    tmux('kill-session', '-t', session);

    // SIGTERM (a supervisor stopping it): the same, with the signal's exit status.
    const third = tmux('new-session', '-d', '-s', session, '-x', '80', '-y', '24', `${command}; echo ui-exited-$?; sleep 30`);
    expect(third.status, third.stderr).toBe(0);
    await screenShows(/Terminal Test.*APPROVED/);
    const shell = tmux('list-panes', '-t', session, '-F', '#{pane_pid}').stdout.trim();
    const node = spawnSync('pgrep', ['-P', shell], { encoding: 'utf8' }).stdout.trim().split('\n')[0]!;
    expect(node).toMatch(/^\d+$/);
    process.kill(Number(node), 'SIGTERM');
    const stopped = await screenShows(/ui-exited-\d+/);
    expect(stopped).toContain('ui-exited-130');
    expect(stopped).not.toContain('1 Customers');
    // Three UI starts on a loaded two-core CI machine: bounded per screen above, generous overall.
  }, 120_000);

  it('start --ui over the demo fixtures: quitting prints no warning (more than ten webhook attempts in flight once made Node warn)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbx-ui-'));
    const stderr = join(dir, 'stderr.txt');
    const demo = fileURLToPath(new URL('../../fixtures/demo.json', import.meta.url));
    // The demo's webhook endpoint (127.0.0.1:4000) does not answer here: every event is attempted at once.
    const command = `NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} start --ui --port 0 --memory --fixtures ${JSON.stringify(demo)} 2> ${JSON.stringify(stderr)}; echo ui-exited-$?; sleep 30`;
    const started = tmux('new-session', '-d', '-s', 'start-ui', '-x', '100', '-y', '30', command);
    expect(started.status, started.stderr).toBe(0);
    try {
      await screenShows(/Hana Kato001/, 30_000, 'start-ui');
      tmux('send-keys', '-t', 'start-ui', '5');
      await screenShows(/5 Webhooks[\s\S]*(FAILED|RETRYING|DELIVERED)/, 30_000, 'start-ui');
      tmux('send-keys', '-t', 'start-ui', 'q');
      await screenShows(/ui-exited-0/, 30_000, 'start-ui');
      expect(readFileSync(stderr, 'utf8')).not.toMatch(/Warning|warning/);
    } finally {
      tmux('kill-session', '-t', 'start-ui');
    }
  }, 120_000);
});
