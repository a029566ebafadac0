import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bin, run, spawnCli, until } from '../helpers/cli.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Waits (up to 10 s) for nothing to answer at `origin` any more. */
async function stopsAnswering(origin: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await answers(origin)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await answers(origin)).toBe(false);
}

/** Whether a process runs (a zombie, dead but not yet reaped by its new parent, does not). */
const running = (pid: number) => {
  const ps = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  const stat = ps.stdout.trim();
  return stat !== '' && !stat.startsWith('Z');
};

const answers = async (url: string) => {
  try {
    return (await fetch(`${url}/_sandbox/health`)).ok;
  } catch {
    return false;
  }
};

describe('service-sandbox exec', () => {
  it('runs the command against a fresh sandbox with its address and credentials, stops it and passes the exit status through', async () => {
    const script = `
      const env = process.env;
      const res = await fetch(env.SERVICE_SANDBOX_BASE_URL + '/config', { headers: { Authorization: 'Basic ' + Buffer.from(env.SERVICE_SANDBOX_CLIENT_ID + ':' + env.SERVICE_SANDBOX_CLIENT_SECRET).toString('base64') } });
      console.log(JSON.stringify({ url: env.SERVICE_SANDBOX_URL, base: env.SERVICE_SANDBOX_BASE_URL, status: res.status }));
      process.exit(7);`;
    const result = await run(['exec', '--', process.execPath, '--input-type=module', '-e', script]);
    expect(result.status, result.stderr).toBe(7);
    const seen = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { url: string; base: string; status: number };
    expect(seen.status).toBe(200);
    expect(seen.base).toBe(`${seen.url}/2025-10-13`);
    expect(seen.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // nothing left serving once the command ended
    expect(await answers(seen.url)).toBe(false);

    const ok = await run(['exec', '--client-id', 'ci', '--client-secret', 'ci-secret-1', '--', process.execPath, '-e', 'process.stdout.write(process.env.SERVICE_SANDBOX_CLIENT_ID)']);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe('ci');
    const missing = await run(['exec', '--', 'no-such-command-here']);
    expect(missing.status).toBe(127);
    expect(missing.stderr).toContain('command not found');
    const noCommand = await run(['exec']);
    expect(noCommand.status).toBe(2);
  });

  it('when its parent dies, exec ends the command and the sandbox', async () => {
    // A parent (think: a CI step) starts exec and is then killed outright.
    const parent = spawn(
      process.execPath,
      ['-e', `const c = require('child_process').spawn(process.execPath, [${JSON.stringify(bin)}, 'exec', '--', process.execPath, '-e', 'console.log("CMD " + process.pid + " " + process.env.SERVICE_SANDBOX_URL); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'inherit', 'inherit'] }); console.log('EXEC ' + c.pid); setInterval(() => {}, 1000);`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await until(() => /CMD \d+ http/.test(out) && /EXEC \d+/.test(out), 15_000, 'the command to start');
      const execPid = Number(/EXEC (\d+)/.exec(out)![1]);
      const [, cmdPid, url] = /CMD (\d+) (\S+)/.exec(out)!;
      expect(await answers(url!)).toBe(true);
      parent.kill('SIGKILL');
      await until(() => !alive(execPid) && !alive(Number(cmdPid)), 10_000, 'exec and its command to end');
      expect(await answers(url!)).toBe(false);
    } finally {
      if (parent.exitCode === null) parent.kill('SIGKILL');
    }
  });

  it('a started sandbox exits when its parent dies (`npx service-sandbox & ... kill $!` leaves nothing)', async () => {
    const parent = spawn(
      process.execPath,
      ['-e', `const c = require('child_process').spawn(process.execPath, [${JSON.stringify(bin)}, '--port', '0', '--memory', '--quiet'], { stdio: ['ignore', 'inherit', 'inherit'] }); console.log('PID ' + c.pid); setInterval(() => {}, 1000);`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await until(() => /ready at http/.test(out) && /PID \d+/.test(out), 15_000, 'the sandbox to be ready');
      const pid = Number(/PID (\d+)/.exec(out)![1]);
      const origin = new URL(/ready at (\S+)/.exec(out)![1]!).origin;
      expect(await answers(origin)).toBe(true);
      parent.kill('SIGKILL');
      await until(() => !alive(pid), 10_000, 'the sandbox to exit');
      expect(await answers(origin)).toBe(false);
    } finally {
      if (parent.exitCode === null) parent.kill('SIGKILL');
    }
  });

  it('exec killed outright (SIGKILL) leaves no process of its command: the command, and what it started, end too', async () => {
    // The command starts a child of its own, as `npm test` starts a shell and test workers.
    const script = `const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log('CMD ' + process.pid + ' ' + c.pid + ' ' + process.env.SERVICE_SANDBOX_URL); setInterval(() => {}, 1000);`;
    const { child, output } = spawnCli(['exec', '--', process.execPath, '-e', script]);
    await until(() => /CMD \d+ \d+ http/.test(output.stdout), 15_000, 'the command and its child');
    const [, command, grandchild, url] = /CMD (\d+) (\d+) (\S+)/.exec(output.stdout)!;
    expect(running(Number(command)) && running(Number(grandchild))).toBe(true);
    child.kill('SIGKILL');
    await until(() => !running(Number(command)) && !running(Number(grandchild)), 10_000, 'the command and its child to end');
    expect(await answers(url!)).toBe(false);
  });

  it('when the command ends, what it left running in its process group is ended too', async () => {
    const script = `const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log('LEFT ' + c.pid); process.exit(3);`;
    const result = await run(['exec', '--', process.execPath, '-e', script]);
    expect(result.status).toBe(3);
    const left = Number(/LEFT (\d+)/.exec(result.stdout)![1]);
    await until(() => !running(left), 10_000, 'the leftover process to end');
  });

  it('a signal to exec reaches the command; exec exits 128 + the signal number', async () => {
    const { child, output } = spawnCli(['exec', '--', process.execPath, '-e', 'console.log("up"); setInterval(() => {}, 1000)']);
    await until(() => output.stdout.includes('up'), 15_000, 'the command');
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(143);
  });

  describe('a sandbox started in the background of a shell', () => {
    /** A project whose node_modules/.bin/service-sandbox is this package (as an install makes it), for npx to find. */
    const project = () => {
      const dir = mkdtempSync(join(tmpdir(), 'sbx-npx-'));
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'npx-project', version: '1.0.0', private: true, dependencies: { 'service-sandbox': '*' } }));
      mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
      symlinkSync(root, join(dir, 'node_modules', 'service-sandbox'));
      symlinkSync('../service-sandbox/bin/service-sandbox.js', join(dir, 'node_modules', '.bin', 'service-sandbox'));
      return dir;
    };
    const start = `npx service-sandbox --port 0 --memory --quiet > sandbox.log 2>&1 &
      SANDBOX=$!
      until grep -q 'ready at' sandbox.log; do sleep 0.1; done
      grep -o 'http://[^/]*' sandbox.log | head -1`;

    it('`npx service-sandbox &` stops when the shell that started it exits (npx in between or not)', async () => {
      const dir = project();
      const shell = spawnSync('bash', ['-c', `${start}\nexit 0`], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
      expect(shell.status, shell.stderr).toBe(0);
      const origin = shell.stdout.trim();
      expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await stopsAnswering(origin);
      expect(readFileSync(join(dir, 'sandbox.log'), 'utf8')).not.toMatch(/error|Error/);
    });

    it('`kill $!` stops it (npx ends, and the sandbox with it); SIGHUP (the terminal closing) stops it cleanly', async () => {
      const dir = project();
      const shell = spawnSync('bash', ['-c', `${start}\nkill $SANDBOX; wait $SANDBOX; echo "exit $?"`], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
      const [origin, exit] = shell.stdout.trim().split('\n');
      expect(exit).toMatch(/^exit (0|143)$/); // npx's own status (143: ended by the SIGTERM)
      await stopsAnswering(origin!);

      const { child, output } = spawnCli(['--port', '0', '--memory']);
      await until(() => output.stdout.includes('ready at'), 15_000, 'the sandbox');
      child.kill('SIGHUP');
      expect(await new Promise((resolve) => child.once('exit', (code) => resolve(code)))).toBe(0);
      expect(output.stdout).toContain('stopping (SIGHUP)');
    });
  });
});
