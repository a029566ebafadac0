import { load as parseYaml } from 'js-yaml';

// The text of a fixture file, read where the file is (the CLI's `load` and `start --fixtures`);
// the control plane applies the document (src/control/fixtures.ts). Both name failures the same way.

/** A fixture that cannot be applied: names the file, the entry and the field. */
export class FixtureError extends Error {
  constructor(
    readonly file: string,
    readonly entry: string,
    readonly field: string | undefined,
    readonly reason: string,
  ) {
    super(`${file}: ${entry}${field ? `, field ${field}` : ''}: ${reason}`);
  }
}

/** Parses a fixture file's text: JSON, or YAML for `.yaml`/`.yml` names. */
export function parseFixtureText(file: string, text: string): unknown {
  try {
    return /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new FixtureError(file, 'the file', undefined, `not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${(error as Error).message}`);
  }
}
