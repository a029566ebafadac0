#!/usr/bin/env node
// Derives the prose-free contract fixture and the generated operation table from
// the OpenAPI document.
//
//   node scripts/derive-contract.mjs [path/to/openapi.yaml]
//
// Default input: <project>/contract/openapi.yaml (the project's copy of the service's contract)
// Outputs:       <project>/fixtures/contract.json
//                <project>/src/generated/operations.ts
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const inputPath = resolve(process.argv[2] ?? resolve(projectRoot, 'contract/openapi.yaml'));
const contractOut = resolve(projectRoot, 'fixtures/contract.json');
const operationsOut = resolve(projectRoot, 'src/generated/operations.ts');

const GENERATED_BY = 'node scripts/derive-contract.mjs';
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const EXPECTED_VERSION = '2025-10-13';

function fail(message) {
  console.error(`derive-contract: ${message}`);
  process.exit(1);
}

// ---------------------------------------------------------------------------
// Prose stripping
// ---------------------------------------------------------------------------

/** Keyword keys that carry prose or examples only. */
const PROSE_KEYS = new Set(['description', 'summary', 'example', 'examples', 'externalDocs']);

/**
 * Keys whose value is a map from user-chosen NAMES to sub-objects. Inside such a
 * map the keys are names (a property may literally be called `description`), so
 * they are never stripped; only the values below them are cleaned.
 *  - JSON Schema name maps: properties, patternProperties, $defs, definitions,
 *    dependentSchemas.
 *  - OpenAPI name maps: paths, webhooks, components.*, responses, content,
 *    headers, encoding, callbacks, links, variables, requestBodies, ...
 * (`x-*` keys directly inside OpenAPI maps are extensions and are dropped; in
 * JSON Schema name maps they would be property names, so they are kept.)
 */
const SCHEMA_NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const OPENAPI_NAME_MAPS = new Set([
  'paths', 'webhooks', 'callbacks', 'links', 'variables',
  'schemas', 'responses', 'parameters', 'requestBodies', 'headers', 'securitySchemes',
  'pathItems', 'content', 'encoding', 'scopes',
]);

/**
 * Keys whose value is literal data (or a list of names), never a schema or an
 * OpenAPI object: copied verbatim.
 */
const LITERAL_KEYS = new Set(['enum', 'const', 'default', 'required', 'mapping', 'dependentRequired', 'security']);

function isExtensionKey(key) {
  return key.startsWith('x-');
}

/**
 * Returns a prose-free deep copy of `node`. `parentKey` is the key under which
 * `node` sits; it tells whether `node`'s own keys are keywords or names.
 */
function strip(node, parentKey) {
  if (Array.isArray(node)) {
    // `parameters: [...]`, `allOf: [...]`, `prefixItems: [...]` ...: elements are objects of the same kind.
    return node.map((item) => strip(item, undefined));
  }
  if (node === null || typeof node !== 'object') return node;

  const out = {};
  const isSchemaNameMap = SCHEMA_NAME_MAPS.has(parentKey);
  const isOpenApiNameMap = OPENAPI_NAME_MAPS.has(parentKey) && !Array.isArray(node);
  for (const [key, value] of Object.entries(node)) {
    if (isSchemaNameMap) {
      out[key] = strip(value, undefined);
      continue;
    }
    if (isOpenApiNameMap) {
      if (isExtensionKey(key)) continue;
      out[key] = strip(value, undefined);
      continue;
    }
    if (PROSE_KEYS.has(key) || isExtensionKey(key)) continue;
    if (LITERAL_KEYS.has(key)) {
      out[key] = structuredClone(value);
      continue;
    }
    out[key] = strip(value, key);
  }
  return out;
}

// Note: `parameters` is a map in components but an array in operations; strip()
// handles both (arrays recurse element-wise, maps keep their names).

// ---------------------------------------------------------------------------
// Load
// ---------------------------------------------------------------------------

let doc;
try {
  doc = parse(readFileSync(inputPath, 'utf8'), { maxAliasCount: -1 });
} catch (err) {
  fail(`cannot read/parse ${inputPath}: ${err instanceof Error ? err.message : String(err)}`);
}
if (!doc || typeof doc !== 'object') fail(`${inputPath} is not a YAML mapping`);
if (typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.1')) {
  fail(`expected an OpenAPI 3.1 document, got openapi: ${JSON.stringify(doc.openapi)}`);
}
const version = doc.info?.version;
if (typeof version !== 'string') fail('info.version is missing');
if (version !== EXPECTED_VERSION) {
  console.warn(`derive-contract: warning: info.version is ${version}, expected ${EXPECTED_VERSION}`);
}
if (!doc.paths || typeof doc.paths !== 'object') fail('paths is missing');

// ---------------------------------------------------------------------------
// contract.json
// ---------------------------------------------------------------------------

const components = {};
for (const section of ['schemas', 'responses', 'parameters', 'requestBodies', 'headers', 'securitySchemes']) {
  // responses/parameters/headers are kept too (when present) so $refs into them resolve.
  if (doc.components?.[section]) components[section] = strip(doc.components[section], section);
}

const contract = {
  'x-generated': `derived from openapi.yaml by: ${GENERATED_BY} — do not edit by hand`,
  openapi: doc.openapi,
  info: { version },
  paths: strip(doc.paths, 'paths'),
  webhooks: strip(doc.webhooks ?? {}, 'webhooks'),
  components,
};

// ---------------------------------------------------------------------------
// operations
// ---------------------------------------------------------------------------

function resolveRef(ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#/')) fail(`unsupported $ref ${JSON.stringify(ref)}`);
  let target = doc;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    target = target?.[part];
  }
  if (target === undefined) fail(`unresolvable $ref ${ref}`);
  return target;
}

function deref(obj) {
  const seen = new Set();
  while (obj && typeof obj === 'object' && typeof obj.$ref === 'string') {
    if (seen.has(obj.$ref)) fail(`circular $ref ${obj.$ref}`);
    seen.add(obj.$ref);
    obj = resolveRef(obj.$ref);
  }
  return obj;
}

const operations = [];
const errorCodes = new Map();
const seenIds = new Set();
for (const [path, rawItem] of Object.entries(doc.paths)) {
  if (path.startsWith('x-')) continue;
  const pathItem = deref(rawItem);
  const pathParams = (pathItem.parameters ?? []).map(deref);
  for (const method of HTTP_METHODS) {
    const op = pathItem[method];
    if (!op) continue;
    const operationId = op.operationId;
    if (typeof operationId !== 'string' || !operationId) fail(`${method.toUpperCase()} ${path} has no operationId`);
    if (seenIds.has(operationId)) fail(`duplicate operationId ${operationId}`);
    seenIds.add(operationId);
    const params = [...pathParams, ...(op.parameters ?? []).map(deref)];
    const idempotent = params.some(
      (p) => p && p.in === 'header' && typeof p.name === 'string' && p.name.toLowerCase() === 'idempotency-key',
    );
    // Security: the names of the schemes any one of which authenticates the operation.
    const security = (op.security ?? doc.security ?? []).flatMap((requirement) => Object.keys(requirement));
    // The query parameters the operation defines (the server warns about any other).
    const query = params.filter((p) => p && p.in === 'query' && typeof p.name === 'string').map((p) => p.name);
    // The statuses the operation declares (an error the server raises should be one of them).
    const statuses = Object.keys(op.responses ?? {}).filter((status) => /^\d{3}$/.test(status)).map(Number);
    // The error codes each error status may carry (the enum of its Error<status> schema's `code`):
    // one list per status across the contract, checked here, so a fault can name a code.
    for (const status of statuses.filter((n) => n >= 400)) {
      const schema = deref(deref(op.responses[String(status)])?.content?.['application/json']?.schema);
      const codes = deref(schema?.properties?.code)?.enum;
      if (!Array.isArray(codes)) continue;
      const known = errorCodes.get(status);
      if (known && known.join() !== codes.join()) fail(`${operationId} ${status}: error codes ${codes.join(', ')} differ from other operations' ${known.join(', ')}`);
      errorCodes.set(status, codes.map(String));
    }
    operations.push({
      operationId,
      method: method.toUpperCase(),
      path,
      tags: Array.isArray(op.tags) ? op.tags.map(String) : [],
      idempotent,
      security,
      query,
      statuses,
    });
  }
}
if (operations.length < 1) fail(`no operations found in ${inputPath}`);

// ---------------------------------------------------------------------------
// Write
// ---------------------------------------------------------------------------

mkdirSync(dirname(contractOut), { recursive: true });
writeFileSync(contractOut, JSON.stringify(contract) + '\n');

const q = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const opLines = operations.map(
  (o) =>
    `  { operationId: ${q(o.operationId)}, method: ${q(o.method)}, path: ${q(o.path)}, tags: [${o.tags.map(q).join(', ')}], idempotent: ${o.idempotent}${
      o.security.length === 1 && o.security[0] === 'BasicAuth' ? '' : `, security: [${o.security.map(q).join(', ')}]`
    }${o.query.length ? `, query: [${o.query.map(q).join(', ')}]` : ''}, statuses: [${o.statuses.join(', ')}] },`,
);
const ts = `// Generated by: ${GENERATED_BY} — do not edit by hand.
// Source: openapi.yaml (OpenAPI ${doc.openapi}, version ${version}); ${operations.length} operations.

export interface ContractOperation {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  tags: string[];
  idempotent: boolean;
  /** The security schemes that authenticate the operation (any one); absent means \`['BasicAuth']\`, empty means none. */
  security?: readonly string[];
  /** The query parameters the operation defines; absent means none. */
  query?: readonly string[];
  /** The response statuses the operation declares. */
  statuses: readonly number[];
}

export const CONTRACT_VERSION = ${q(version)};

export const operations: readonly ContractOperation[] = [
${opLines.join('\n')}
];

/** The error codes the contract gives each error status (the \`code\` enum of its Error<status> schema). */
export const errorCodes: Readonly<Record<number, readonly string[]>> = {
${[...errorCodes.keys()].sort((x, y) => x - y).map((status) => `  ${status}: [${errorCodes.get(status).map(q).join(', ')}],`).join('\n')}
};

/** Converts an OpenAPI path template to a Hono route: \`/customers/{customerId}\` -> \`/customers/:customerId\`. */
export function toHonoPath(path: string): string {
  return path.replace(/\\{([^}/]+)\\}/g, ':$1');
}
`;
mkdirSync(dirname(operationsOut), { recursive: true });
writeFileSync(operationsOut, ts);

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const inSize = statSync(inputPath).size;
const outSize = statSync(contractOut).size;
console.log(`derive-contract: read ${relative(process.cwd(), inputPath)} (${kib(inSize)})`);
console.log(
  `derive-contract: wrote ${relative(process.cwd(), contractOut)} (${outSize} bytes, ${kib(outSize)}; ` +
    `${Object.keys(contract.paths).length} paths, ${Object.keys(contract.webhooks).length} webhooks, ` +
    `${Object.keys(components.schemas ?? {}).length} schemas)`,
);
console.log(
  `derive-contract: wrote ${relative(process.cwd(), operationsOut)} (${operations.length} operations, ` +
    `${operations.filter((o) => o.idempotent).length} idempotent)`,
);
