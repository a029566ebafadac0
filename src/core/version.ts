import { readFileSync } from 'node:fs';

let cached: string | undefined;

/**
 * The package's version, read once from its package.json: one folder above the bundle (dist/),
 * two above src/core when run from the sources. `0.0.0` if neither is there.
 */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'service-sandbox') return (cached = pkg.version);
    } catch {
      // try the next place
    }
  }
  return (cached = '0.0.0');
}
