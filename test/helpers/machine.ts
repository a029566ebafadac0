import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * A program of the machine that some tests drive (Chromium, tmux). On a machine without it those
 * tests are skipped, saying what to install; where `SERVICE_SANDBOX_REQUIRE_TOOLS=1` (CI sets
 * it, after installing them) a missing program fails the run instead.
 */
export function machineTool(name: string, paths: string[], install: string): string | undefined {
  const found = paths.find((path) => existsSync(path));
  if (found) return found;
  const message = `${name} is not installed (looked at ${paths.join(', ')}): ${install}`;
  if (process.env.SERVICE_SANDBOX_REQUIRE_TOOLS === '1') throw new Error(message);
  console.warn(`skipping the ${name} tests: ${message}`);
  return undefined;
}

/**
 * tmux on a server of its own (`-L socket`), kept up when its last session ends (`exit-empty
 * off`) until the file's `kill-server`: a session started just as the previous one ended could
 * otherwise reach the server on its way out ("server exited unexpectedly", seen in CI).
 */
export function tmuxOnSocket(path: string | undefined, socket: string): (...args: string[]) => SpawnSyncReturns<string> {
  let started = false;
  return (...args: string[]) => {
    if (!started && args[0] !== 'kill-server') {
      spawnSync(path!, ['-L', socket, 'start-server', ';', 'set-option', '-g', 'exit-empty', 'off'], { encoding: 'utf8' });
      started = true;
    }
    return spawnSync(path!, ['-L', socket, ...args], { encoding: 'utf8' });
  };
}
