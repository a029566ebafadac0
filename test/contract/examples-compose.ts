// Composes request bodies from the `example` values of openapi.yaml's request schemas
// (fixtures/contract.json is derived without them). Used by test/contract/examples.test.ts.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** A node of the OpenAPI document. */
export type Node = any;

// The project's own copy of the contract (with its examples); fixtures/contract.json is derived from it.
const specUrl = new URL('../../contract/openapi.yaml', import.meta.url);

/** The reference contract with its examples. */
export const spec: Node = parse(readFileSync(specUrl, 'utf8'));

function resolve(ref: string): Node {
  let node: Node = spec;
  for (const token of ref.slice(2).split('/')) node = node?.[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
  return node;
}
/** Follows `$ref`s to the schema they name. */
export const deref = (node: Node): Node => (node && typeof node.$ref === 'string' ? deref(resolve(node.$ref)) : node);

/**
 * Picks the branch of every oneOf/anyOf: composing with `pick = i` takes branch `i mod n` of each
 * (so `max n` bodies cover every branch at least once). `seen.branches` records the widest choice seen.
 */
interface Walk {
  pick: number;
  seen: { branches: number };
  depth: number;
}

/** An example value of `schema`, or undefined when neither it nor its properties give one. */
function compose(schema: Node, walk: Walk, required: boolean, name?: string): unknown {
  const node = deref(schema);
  if (!node || walk.depth > 12) return undefined;
  // An example on the property itself (beside a $ref) wins.
  if (schema && schema.example !== undefined) return structuredClone(schema.example);
  if (node.example !== undefined) return structuredClone(node.example);
  if (node.examples?.length) return structuredClone(node.examples[0]);
  const variants = node.oneOf ?? node.anyOf;
  // Branches that only say which properties are required (`anyOf: [{required: [code]}, ...]`) pick no schema.
  if (variants && variants.every((branch: Node) => !branch.$ref && !branch.properties && !branch.allOf && !branch.oneOf && !branch.anyOf && !branch.type)) {
    walk.seen.branches = Math.max(walk.seen.branches, variants.length);
    const chosen = variants[walk.pick % variants.length];
    return compose({ ...node, oneOf: undefined, anyOf: undefined, required: [...(node.required ?? []), ...(chosen.required ?? [])] }, walk, required);
  }
  if (variants) {
    walk.seen.branches = Math.max(walk.seen.branches, variants.length);
    const chosen = variants[walk.pick % variants.length];
    const value = compose(chosen, { ...walk, depth: walk.depth + 1 }, required);
    // oneOf beside own properties (base + variant): merge both.
    if (node.properties && value && typeof value === 'object') return { ...(compose({ ...node, oneOf: undefined, anyOf: undefined }, walk, required) as object), ...value };
    return value;
  }
  if (node.allOf) {
    let merged: Record<string, unknown> | undefined;
    for (const part of node.allOf) {
      const value = compose(part, { ...walk, depth: walk.depth + 1 }, required);
      if (value && typeof value === 'object' && !Array.isArray(value)) merged = { ...merged, ...(value as object) };
    }
    if (node.properties) merged = { ...merged, ...(compose({ ...node, allOf: undefined }, walk, required) as object) };
    return merged;
  }
  if (node.type === 'object' || node.properties) {
    const out: Record<string, unknown> = {};
    const requiredNames = new Set<string>(node.required ?? []);
    for (const [name, property] of Object.entries<Node>(node.properties ?? {})) {
      if (deref(property)?.readOnly) continue;
      const value = compose(property, { ...walk, depth: walk.depth + 1 }, requiredNames.has(name), name);
      if (value !== undefined) out[name] = value;
    }
    return Object.keys(out).length || required ? out : undefined;
  }
  if (node.type === 'array' || node.items) {
    const item = compose(node.items, { ...walk, depth: walk.depth + 1 }, required);
    return item === undefined ? (required ? [] : undefined) : [item];
  }
  // A required value the contract gives no example for: its enum's first value, its default, or a
  // plain value of its type and format (the body cannot be sent without it).
  if (required) return filler(node, name);
  // An optional property with one allowed value (a variant's discriminator) names the variant.
  if (node.enum?.length === 1) return node.enum[0];
  return undefined;
}

/** A plain, schema-valid value for a required property that has no example. */
function filler(node: Node, name = ''): unknown {
  if (node.enum?.length) return node.enum[0];
  if (node.const !== undefined) return node.const;
  if (node.default !== undefined) return node.default;
  const type = Array.isArray(node.type) ? node.type.find((t: string) => t !== 'null') : node.type;
  if (type === 'integer' || type === 'number') return node.minimum ?? (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : 1);
  if (type === 'boolean') return false;
  if (type !== 'string') return undefined;
  if (/country|nationality/i.test(name)) return 'US';
  if (/phone/i.test(name)) return '+14155550123';
  if (/email/i.test(name)) return 'jane.smith@example.com';
  if (node.format === 'date-time') return '2025-10-03T15:00:00Z';
  if (node.format === 'date') return '1990-01-15';
  if (node.format === 'email') return 'jane.smith@example.com';
  if (node.format === 'uri') return 'https://example.com';
  return 'Jane Smith'.padEnd(node.minLength ?? 0, 'x').slice(0, node.maxLength ?? 64);
}

/** Every body the examples give for `schema`: one per oneOf/anyOf branch index. */
export function exampleBodies(schema: Node): unknown[] {
  const seen = { branches: 1 };
  const bodies = [compose(schema, { pick: 0, seen, depth: 0 }, true)];
  for (let pick = 1; pick < seen.branches; pick++) bodies.push(compose(schema, { pick, seen, depth: 0 }, true));
  const keys = new Set<string>();
  return bodies.filter((body) => {
    const key = JSON.stringify(body);
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  });
}

/** The JSON request-body schema of `method path`, or undefined. */
export function requestSchema(method: string, path: string): Node | undefined {
  const operation = spec.paths?.[path]?.[method.toLowerCase()];
  const body = deref(operation?.requestBody);
  return body?.content?.['application/json']?.schema;
}
