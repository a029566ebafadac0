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
