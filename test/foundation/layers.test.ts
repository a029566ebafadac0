import { cruise } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The import rules of src/ (.dependency-cruiser.cjs; `npm run check:layers`, run by `npm test`
 * before the build) against a small tree of deliberately wrong imports
 * (test/fixtures/layers/src/): each wrong import fails with the name of the rule it breaks, and
 * type-only imports count. The project's own config, cruised in process: about 0.2 s.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
  forbidden: { name: string }[];
  options: Record<string, unknown> & { tsConfig: { fileName: string } };
};

async function cruiseFixture(outputType: 'json' | 'err') {
  const { tsConfig, ...options } = config.options;
  return cruise(
    ['src'],
    { ...options, validate: true, ruleSet: { forbidden: config.forbidden } as never, baseDir: `${root}test/fixtures/layers`, outputType },
    {},
    { tsConfig: extractTSConfig(`${root}${tsConfig.fileName}`) },
  );
}

describe('layer rules (dependency-cruiser)', () => {
  it('a wrong import fails the check, naming the rule it breaks; type-only imports count', async () => {
    const result = await cruiseFixture('json');
    const output = (typeof result.output === 'string' ? JSON.parse(result.output) : result.output) as {
      summary: { violations: { rule: { name: string }; from: string; to: string }[] };
    };
    const violations = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
    expect(violations).toEqual([
      // core/ids.ts imports clock.ts for a type only, which still closes the circle.
      'no-circular: src/core/clock.ts -> src/core/ids.ts',
      // quotes imports its guard (a type only), and the guard imports quotes, as a guard may.
      'no-circular: src/resources/quotes/index.ts -> src/resources/sca/index.ts',
      'quotes-customers-external-accounts-cards-import-no-guard: src/resources/quotes/index.ts -> src/resources/sca/index.ts',
      'server-imports-no-area: src/server/auth.ts -> src/resources/quotes/index.ts',
    ]);
  });

  it('fails (a non-zero exit, one per error) with a message naming the rule, the importing file and the imported one', async () => {
    const { output, exitCode } = await cruiseFixture('err');
    expect(exitCode).toBe(4);
    expect(output).toContain('error server-imports-no-area: src/server/auth.ts → src/resources/quotes/index.ts');
    expect(output).toContain('error quotes-customers-external-accounts-cards-import-no-guard: src/resources/quotes/index.ts → src/resources/sca/index.ts');
  });

  it('every rule of the config has a name and a reason', () => {
    for (const rule of config.forbidden) expect(rule).toMatchObject({ name: expect.stringMatching(/^[a-z-]+$/), comment: expect.any(String) });
  });
});
