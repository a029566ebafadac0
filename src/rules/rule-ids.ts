/**
 * Stable ids of the sandbox rules, for integration coverage (`GET /_sandbox/coverage`). Each
 * rule table of src/rules/ declares its ids beside it, one per row, with `ruleFamily`; the area
 * that applies the table reports the row's id where the rule fires (`recordRule`). A rule and
 * its id change in one file; `catalog.ts` lists every family.
 */

/** One sandbox rule as the coverage report lists it. */
export interface SandboxRule {
  /** Stable id, `<family>.<row>`, e.g. `payouts.suffix.002` (a readiness profile names it). */
  id: string;
  /** The area the report groups it under (the docs page of the rule). */
  area: string;
  /** What triggers the rule and what it does, in a line. */
  title: string;
}

/** The rows of one rule table, by the table's key (a suffix, an address, a literal). */
export interface RuleFamily<K extends string = string> {
  readonly prefix: string;
  readonly rules: readonly SandboxRule[];
  /** The id of the row `key`; a key the table does not have is the `other` row (or an error when there is none). */
  of(key: string): string;
  /** The id of a row known at compile time. */
  id(key: K): string;
}

/**
 * Declares the ids of one rule table: `titles` has a row per key of the table (and `other` for
 * the default row when there is one). With `table`, every key of the table must have a title:
 * a row added without its id fails when the module loads.
 */
export function ruleFamily<K extends string>(area: string, prefix: string, titles: Readonly<Record<K, string>>, table?: object): RuleFamily<K> {
  const keys = Object.keys(titles) as K[];
  if (table) {
    const missing = Object.keys(table).filter((key) => !keys.includes(key as K));
    if (missing.length) throw new Error(`rule family ${prefix}: no id for the table's rows ${missing.join(', ')}`);
  }
  const ids = new Map<string, string>(keys.map((key) => [key, `${prefix}.${key}`]));
  const other = ids.get('other');
  return {
    prefix,
    rules: keys.map((key) => ({ id: `${prefix}.${key}`, area, title: titles[key] })),
    of(key: string): string {
      const id = ids.get(key) ?? other;
      if (id === undefined) throw new Error(`rule family ${prefix} has no row ${key}`);
      return id;
    },
    id(key: K): string {
      return ids.get(key)!;
    },
  };
}
