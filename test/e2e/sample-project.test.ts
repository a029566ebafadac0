import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The CI double as a user gets it: examples/ci-double (a project with a vitest suite that uses
 * connectSandbox() helpers) installs the packed tarball of this package and runs
 * `npx service-sandbox exec -- npx vitest run`.
 *
 * How it installs, fast and offline: `npm pack --ignore-scripts` packs the dist/ that `npm test`
 * built (no second build), and `npm ci --offline --ignore-scripts` installs the tarball with its
 * dependency tree from a lockfile made of this project's own (the same better-sqlite3 and its
 * dependencies, at the versions and integrities npm already holds in its cache; about a second).
 * Scripts are skipped, so better-sqlite3's native addon (minutes to compile) is copied from this
 * project's build of the same version. vitest, the sample's test runner, is linked from this
 * project's node_modules. What runs is the installed package: the sample checks it resolves
 * `service-sandbox` inside its own node_modules.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const example = join(root, 'examples', 'ci-double');

const npm = (args: string[], cwd: string) => spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

/** A lockfile for `dependencies` of the sample: the tarball, and each package's tree as this project's lockfile has it. */
function lockfileFor(tarball: string, integrity: string): Record<string, unknown> {
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; license: string; bin: unknown; engines: unknown; dependencies: Record<string, string> };
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dependencies?: Record<string, string>; dev?: boolean; devOptional?: boolean; peer?: boolean }> };
  const packages: Record<string, unknown> = {
    '': { name: 'ci-double-example', devDependencies: { 'service-sandbox': `file:${tarball}` } },
    'node_modules/service-sandbox': { version: own.version, resolved: `file:${tarball}`, integrity, dev: true, license: own.license, dependencies: own.dependencies, bin: own.bin, engines: own.engines },
  };
  const visit = (path: string) => {
    if (packages[path]) return;
    const entry = lock.packages[path];
    if (!entry) throw new Error(`package-lock.json has no ${path}`);
    const { devOptional: _devOptional, peer: _peer, ...rest } = entry;
    packages[path] = { ...rest, dev: true };
    for (const name of Object.keys(entry.dependencies ?? {})) {
      // Node's lookup: the nearest node_modules up from the package that needs it.
      let base = path;
      for (;;) {
        const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
        if (lock.packages[candidate]) {
          visit(candidate);
          break;
        }
        if (!base) throw new Error(`package-lock.json cannot resolve ${name} for ${path}`);
        const at = base.lastIndexOf('/node_modules/');
        base = at < 0 ? '' : base.slice(0, at);
      }
    }
  };
  for (const name of Object.keys(own.dependencies)) visit(`node_modules/${name}`);
  return { name: 'ci-double-example', lockfileVersion: 3, requires: true, packages };
}

describe('a sample project installs the packed tarball and runs its vitest suite under service-sandbox exec', () => {
  it('examples/ci-double: npx service-sandbox exec -- npx vitest run passes, using connectSandbox() helpers', async () => {
    const started = Date.now();
    const dir = mkdtempSync(join(tmpdir(), 'sbx-sample-'));
    const packed = npm(['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], root);
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = packed.stdout.trim().split('\n').at(-1)!;
    expect(tarball).toMatch(/^service-sandbox-.*\.tgz$/);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(join(dir, tarball))).digest('base64')}`;

    const project = join(dir, 'project');
    mkdirSync(project);
    for (const file of readdirSync(example)) copyFileSync(join(example, file), join(project, file));
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    // The example names the published package; here it is this tarball (vitest is linked below).
    manifest.devDependencies = { 'service-sandbox': `file:../${tarball}` };
    writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2));
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lockfileFor(`../${tarball}`, integrity), null, 2));

    let install = npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], project);
    // A machine whose npm cache lacks a tarball fetches it (from the registry npm is set up with).
    if (install.status !== 0 && /ENOTCACHED/.test(install.stderr)) install = npm(['ci', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], project);
    expect(install.status, install.stderr).toBe(0);
    const installedAt = Date.now();

    // better-sqlite3's addon: the one this project built for the same version and this node.
    const ours = JSON.parse(readFileSync(join(root, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string };
    const theirs = JSON.parse(readFileSync(join(project, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string };
    expect(theirs.version).toBe(ours.version);
    expect(existsSync(join(project, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(false);
    mkdirSync(join(project, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
    copyFileSync(join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), join(project, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'));
    symlinkSync(join(root, 'node_modules/vitest'), join(project, 'node_modules/vitest'));
    symlinkSync('../vitest/vitest.mjs', join(project, 'node_modules/.bin/vitest'));
    // The installed package is the tarball's, not a link to these sources.
    expect(existsSync(join(project, 'node_modules/service-sandbox/src'))).toBe(false);
    expect(existsSync(join(project, 'node_modules/service-sandbox/dist/index.js'))).toBe(true);

    // The sample's vitest is a run of its own, not a worker of this one.
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', CI: 'true' };
    for (const name of Object.keys(env)) if (name.startsWith('VITEST') || name === 'NODE_OPTIONS') delete env[name];
    const run = spawn('npx', ['service-sandbox', 'exec', '--', 'npx', 'vitest', 'run'], { cwd: project, env });
    let output = '';
    run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    run.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));
    expect(status, output).toBe(0);
    const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/✓ payments\.test\.ts \(3 tests\)/);
    expect(plain).toMatch(/Tests\s+3 passed \(3\)/);
    // Figures (not asserted): pack + install, and the whole.
    process.stdout.write(`sample project: packed and installed in ${installedAt - started} ms, suite under exec passed in ${Date.now() - installedAt} ms\n`);
  }, 90_000);
});
