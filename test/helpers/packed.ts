import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/**
 * A project of a user's, with this package installed from its packed tarball, fast and offline:
 * `npm pack --ignore-scripts` packs the dist/ that `npm test` built (no second build), and
 * `npm ci --offline --ignore-scripts` installs the tarball with its dependency tree from a
 * lockfile made of this project's own (the same better-sqlite3 and its dependencies, at the
 * versions and integrities npm already holds in its cache; about a second). Scripts are skipped,
 * so better-sqlite3's native addon (minutes to compile) is copied from this project's build of the
 * same version. vitest, the project's test runner, is linked from this project's node_modules.
 */
export const root = fileURLToPath(new URL('../..', import.meta.url));

const npm = (args: string[], cwd: string) => spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

/** A lockfile for the tarball and its dependencies, each package's tree as this project's lockfile has it. */
function lockfileFor(name: string, tarball: string, integrity: string): Record<string, unknown> {
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; license: string; bin: unknown; engines: unknown; dependencies: Record<string, string> };
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dependencies?: Record<string, string>; devOptional?: boolean; peer?: boolean }> };
  const packages: Record<string, unknown> = {
    '': { name, devDependencies: { 'service-sandbox': `file:${tarball}` } },
    'node_modules/service-sandbox': { version: own.version, resolved: `file:${tarball}`, integrity, dev: true, license: own.license, dependencies: own.dependencies, bin: own.bin, engines: own.engines },
  };
  const visit = (path: string) => {
    if (packages[path]) return;
    const entry = lock.packages[path];
    if (!entry) throw new Error(`package-lock.json has no ${path}`);
    const { devOptional: _devOptional, peer: _peer, ...rest } = entry;
    packages[path] = { ...rest, dev: true };
    for (const dependency of Object.keys(entry.dependencies ?? {})) {
      // Node's lookup: the nearest node_modules up from the package that needs it.
      let base = path;
      for (;;) {
        const candidate = `${base ? `${base}/` : ''}node_modules/${dependency}`;
        if (lock.packages[candidate]) {
          visit(candidate);
          break;
        }
        if (!base) throw new Error(`package-lock.json cannot resolve ${dependency} for ${path}`);
        const at = base.lastIndexOf('/node_modules/');
        base = at < 0 ? '' : base.slice(0, at);
      }
    }
  };
  for (const dependency of Object.keys(own.dependencies)) visit(`node_modules/${dependency}`);
  return { name, lockfileVersion: 3, requires: true, packages };
}

/** Writes `files` into a new project, installs the packed package there; resolves to its folder. */
export function packedProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sbx-packed-'));
  const packed = npm(['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], root);
  expect(packed.status, packed.stderr).toBe(0);
  const tarball = packed.stdout.trim().split('\n').at(-1)!;
  expect(tarball).toMatch(/^service-sandbox-.*\.tgz$/);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(join(dir, tarball))).digest('base64')}`;

  const project = join(dir, 'project');
  mkdirSync(project);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), text);
  }
  const manifest = JSON.parse(files['package.json'] ?? '{"name":"project","private":true,"type":"module"}') as { name?: string; devDependencies?: Record<string, string>; dependencies?: Record<string, string> };
  // The package is this tarball (vitest is linked below, not installed).
  delete manifest.dependencies;
  manifest.devDependencies = { 'service-sandbox': `file:../${tarball}` };
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lockfileFor(manifest.name ?? 'project', `../${tarball}`, integrity), null, 2));

  let install = npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], project);
  // A machine whose npm cache lacks a tarball fetches it (from the registry npm is set up with).
  if (install.status !== 0 && /ENOTCACHED/.test(install.stderr)) install = npm(['ci', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], project);
  expect(install.status, install.stderr).toBe(0);

  // better-sqlite3's addon: the one this project built for the same version and this node.
  const ours = JSON.parse(readFileSync(join(root, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string };
  const theirs = JSON.parse(readFileSync(join(project, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string };
  expect(theirs.version).toBe(ours.version);
  mkdirSync(join(project, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
  copyFileSync(join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), join(project, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'));
  symlinkSync(join(root, 'node_modules/vitest'), join(project, 'node_modules/vitest'));
  symlinkSync('../vitest/vitest.mjs', join(project, 'node_modules/.bin/vitest'));
  // The installed package is the tarball's, not a link to these sources.
  expect(existsSync(join(project, 'node_modules/service-sandbox/src'))).toBe(false);
  expect(existsSync(join(project, 'node_modules/service-sandbox/dist/index.js'))).toBe(true);
  return project;
}

/** Runs a command in the project (a vitest run of its own, not a worker of this one); resolves to its status and output without colours. */
export function runIn(project: string, command: string, args: string[]): Promise<{ status: number | null; output: string }> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', CI: 'true' };
  for (const name of Object.keys(env)) if (name.startsWith('VITEST') || name === 'NODE_OPTIONS') delete env[name];
  const child = spawn(command, args, { cwd: project, env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, output: output.replace(/\u001b\[[0-9;]*m/g, '') })));
}
