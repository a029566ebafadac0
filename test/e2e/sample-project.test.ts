import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packedProject, root, runIn } from '../helpers/packed.js';

/**
 * The CI double as a user gets it: examples/ci-double (a project with a vitest suite that uses
 * connectSandbox() helpers) installs the packed tarball of this package (test/helpers/packed.ts
 * says how, offline and in about a second) and runs `npx service-sandbox exec -- npx vitest run`.
 * What runs is the installed package: the sample checks it resolves `service-sandbox` inside its
 * own node_modules.
 */
describe('a sample project installs the packed tarball and runs its vitest suite under service-sandbox exec', () => {
  it('examples/ci-double: npx service-sandbox exec -- npx vitest run passes, using connectSandbox() helpers', async () => {
    const started = Date.now();
    const example = join(root, 'examples', 'ci-double');
    const project = packedProject(Object.fromEntries(readdirSync(example).map((file) => [file, readFileSync(join(example, file), 'utf8')])));
    const installedAt = Date.now();
    const { status, output } = await runIn(project, 'npx', ['service-sandbox', 'exec', '--', 'npx', 'vitest', 'run']);
    expect(status, output).toBe(0);
    expect(output).toMatch(/✓ payments\.test\.ts \(3 tests\)/);
    expect(output).toMatch(/Tests\s+3 passed \(3\)/);
    // Figures (not asserted): pack + install, and the suite under exec.
    process.stdout.write(`sample project: packed and installed in ${installedAt - started} ms, suite under exec passed in ${Date.now() - installedAt} ms\n`);
  }, 90_000);
});
