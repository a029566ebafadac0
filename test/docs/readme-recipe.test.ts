import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packedProject, root, runIn } from '../helpers/packed.js';

/**
 * The README's CI-double recipe, tested as written: the code blocks of its "A CI double" section
 * that start with a `// <file name>` comment are that file, word for word, in a project that
 * installs the packed package (test/helpers/packed.ts); `npx vitest run` there passes.
 */
function recipeFiles(): Record<string, string> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('### A CI double');
  expect(start, 'README.md has a "### A CI double" section').toBeGreaterThanOrEqual(0);
  const rest = readme.slice(start + 1);
  const section = rest.slice(0, rest.search(/\n#{2,3} /) >= 0 ? rest.search(/\n#{2,3} /) : undefined);
  const files: Record<string, string> = {};
  for (const [, code] of section.matchAll(/```ts\n([\s\S]*?)```/g)) {
    const name = /^\/\/ (\S+\.[cm]?[jt]s)\n/.exec(code!)?.[1];
    if (name) files[name] = code!;
  }
  return files;
}

describe("the README's CI double recipe", () => {
  it('globalSetup starts a sandbox and a test uses connectSandbox() helpers: npx vitest run passes as written', async () => {
    const files = recipeFiles();
    expect(Object.keys(files).sort()).toEqual(['kyc.test.ts', 'vitest.config.ts', 'vitest.global-setup.ts']);
    expect(files['vitest.global-setup.ts']).toContain('startSandbox');
    expect(files['kyc.test.ts']).toContain('connectSandbox()');
    const project = packedProject({ ...files, 'package.json': JSON.stringify({ name: 'readme-recipe', private: true, type: 'module' }) });
    const { status, output } = await runIn(project, 'npx', ['vitest', 'run']);
    expect(status, output).toBe(0);
    expect(output).toMatch(/✓ kyc\.test\.ts \(1 test\)/);
  }, 90_000);
});
