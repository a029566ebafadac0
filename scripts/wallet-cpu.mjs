#!/usr/bin/env node
// CPU per embedded-wallet login and per signed payout, server and client side, for comparing
// changes on a shared machine where throughput swings. Starts a sandbox from a bundle
// (default dist/cli.js; `--prof` uses .prof/dist from scripts/build-profile.mjs and writes a
// V8 CPU profile to .prof/cpu), runs the bench/scenarios/50-wallet.mjs clients and reads the
// server's utime+stime from /proc/<pid>/stat and the client's process.cpuUsage().
//   node scripts/wallet-cpu.mjs [--prof] [--seconds 5] [--rounds 3] [--cold] [--logins-only] [--threads]
// (--cold: no one-second warm-up before the first round, as in the benchmark.)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const prof = args.includes('--prof');
const seconds = Number(opt('--seconds', 5));
const rounds = Number(opt('--rounds', 3));
const root = fileURLToPath(new URL('..', import.meta.url));
const { setupWallets, login, rate, prepareQuotes, execute, CONCURRENCY } = await import('../bench/scenarios/50-wallet.mjs');
const warm = !args.includes('--cold');

const dir = mkdtempSync(join(tmpdir(), 'wallet-cpu-'));
const entry = join(root, prof ? '.prof/dist/run.mjs' : 'bin/service-sandbox.js');
const node = prof ? ['--cpu-prof', '--cpu-prof-dir', join(root, '.prof/cpu')] : [];
const child = spawn(process.execPath, [...node, entry, '--port', '0', '--db', join(dir, 'w.db'), '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
const baseUrl = await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
    const m = /ready at (http:\/\/\S+)/.exec(out);
    if (m) resolve(m[1]);
  });
  child.on('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
});

const tick = 100; // USER_HZ
const serverTimes = () => {
  const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: (Number(f[11]) * 1000) / tick, system: (Number(f[12]) * 1000) / tick };
};
const clientMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** CPU ms of the server's main thread and of its other threads (--threads): V8's compiler and GC helpers, libuv's pool. */
const threadMs = () => {
  const out = {};
  for (const tid of readdirSync(`/proc/${child.pid}/task`)) {
    const name = tid === String(child.pid) ? 'main' : 'other';
    const f = readFileSync(`/proc/${child.pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
    out[name] = (out[name] ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / tick;
  }
  return out;
};
async function measure(label, task) {
  const t0s = args.includes('--threads') ? threadMs() : undefined;
  const s0 = serverTimes();
  const c0 = clientMs();
  const t0 = performance.now();
  const perSecond = await rate(seconds, task);
  const wall = (performance.now() - t0) / 1000;
  const n = perSecond * seconds;
  const s1 = serverTimes();
  const line = `${label}: ${perSecond.toFixed(0)}/s  server ${((s1.user + s1.system - s0.user - s0.system) / n).toFixed(2)} ms (sys ${((s1.system - s0.system) / n).toFixed(2)})  client ${((clientMs() - c0) / n).toFixed(2)} ms  (n=${n}, ${wall.toFixed(1)}s)`;
  console.log(line);
  if (t0s) {
    const t1s = threadMs();
    console.log(`  threads (ms/op): ${Object.entries(t1s).map(([name, ms]) => `${name} ${((ms - (t0s[name] ?? 0)) / n).toFixed(2)}`).join(', ')}`);
  }
  return perSecond;
}

try {
  const wallets = await setupWallets(baseUrl);
  if (warm) await rate(1, (i) => login(baseUrl, wallets[i].credential.id));
  for (let r = 0; r < rounds; r += 1) await measure('logins  ', (i) => login(baseUrl, wallets[i].credential.id));
  if (!args.includes('--logins-only')) {
    const keys = await Promise.all(wallets.map((w) => login(baseUrl, w.credential.id)));
    const queues = await prepareQuotes(baseUrl, wallets, Math.ceil((600 * seconds * rounds) / CONCURRENCY));
    for (let r = 0; r < rounds; r += 1) {
      await measure('executes', async (i) => {
        const quote = queues[i].pop();
        if (!quote) return false;
        await execute(baseUrl, quote, keys[i]);
      });
    }
  }
} finally {
  child.kill('SIGINT');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
