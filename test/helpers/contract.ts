// Contract harness shared by every test: checks real response bodies against the
// OpenAPI 3.1 contract (fixtures/contract.json, derived from openapi.yaml by
// `node scripts/derive-contract.mjs`).
//
// One Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) holds the whole
// contract document under the id `contract.json`. Every validator is a tiny
// wrapper `{ $ref: "contract.json#/<json pointer>" }`, so the contract's own
// `#/components/schemas/X` refs resolve against the contract document without
// rewriting. Validators are compiled on first use and cached.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type JsonObject = Record<string, unknown>;

const CONTRACT_ID = 'contract.json';
const CONTRACT_URL = new URL('../../fixtures/contract.json', import.meta.url);
const BASE_PATH = '/2025-10-13';
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * Statuses the server may answer generically for any operation. When an operation
 * does not declare one of them, the body is checked against this component schema.
 */
const GENERIC_ERROR_SCHEMAS: Readonly<Record<number, string>> = {
  401: 'Error401',
  404: 'Error404',
  405: 'Error405',
  // 429 and 503 are what an injected fault (POST /_sandbox/faults) answers on any operation.
  429: 'Error429',
  500: 'Error500',
  501: 'Error501',
  503: 'Error503',
};

/** Formats that must never make Ajv throw; anything ajv-formats lacks is accepted as-is. */
const TOLERATED_FORMATS = [
  'int64', 'int32', 'uri', 'email', 'date', 'date-time', 'uuid', 'binary', 'byte', 'double', 'float', 'password',
];

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------
// Contract document
// ---------------------------------------------------------------------------

const contract: JsonObject = (() => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(CONTRACT_URL, 'utf8'));
  } catch (err) {
    throw new Error(
      `contract harness: cannot load ${CONTRACT_URL.pathname} (run \`node scripts/derive-contract.mjs\`): ${String(err)}`,
    );
  }
  if (!isObject(parsed) || !isObject(parsed.paths)) {
    throw new Error(`contract harness: ${CONTRACT_URL.pathname} has no paths`);
  }
  return parsed;
})();

/** JSON-pointer-escapes and URI-encodes one reference token. */
function pointerToken(token: string): string {
  return encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function pointer(tokens: readonly string[]): string {
  return '#' + tokens.map((t) => '/' + pointerToken(t)).join('');
}

function decodePointer(ref: string): string[] {
  if (!ref.startsWith('#/')) throw new Error(`contract harness: unsupported $ref ${ref} (only local refs)`);
  return ref
    .slice(2)
    .split('/')
    .map((t) => decodeURIComponent(t).replace(/~1/g, '/').replace(/~0/g, '~'));
}

function at(tokens: readonly string[]): unknown {
  let node: unknown = contract;
  for (const t of tokens) {
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[t];
  }
  return node;
}

/** Follows `$ref` chains (e.g. into components/responses); returns the object and where it lives. */
function deref(tokens: readonly string[]): { value: unknown; tokens: readonly string[] } {
  const seen = new Set<string>();
  let current = tokens;
  let value = at(current);
  while (isObject(value) && typeof value.$ref === 'string') {
    if (seen.has(value.$ref)) throw new Error(`contract harness: circular $ref ${value.$ref}`);
    seen.add(value.$ref);
    current = decodePointer(value.$ref);
    value = at(current);
    if (value === undefined) throw new Error(`contract harness: unresolvable $ref ${[...seen].pop()}`);
  }
  return { value, tokens: current };
}

// ---------------------------------------------------------------------------
// Ajv
// ---------------------------------------------------------------------------

const ajv = new Ajv2020({
  strict: false, // OpenAPI keywords (discriminator, readOnly, xml, ...) are not JSON Schema
  allErrors: true,
  // discriminator stays off: many of the contract's discriminators do not meet Ajv's requirements.
});
// Under NodeNext the default import of this CommonJS module is its `module.exports`
// object, whose `default` is the plugin (it is also the plugin itself at runtime).
const addFormats = addFormatsModule.default;
addFormats(ajv);

(function tolerateFormats(): void {
  const known = new Set(Object.keys(ajv.formats));
  const wanted = new Set(TOLERATED_FORMATS);
  (function collect(node: unknown): void {
    if (Array.isArray(node)) return node.forEach(collect);
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'format' && typeof value === 'string') wanted.add(value);
      else collect(value);
    }
  })(contract);
  for (const name of wanted) if (!known.has(name)) ajv.addFormat(name, true);
})();

ajv.addSchema(contract, CONTRACT_ID);

const validators = new Map<string, ValidateFunction>();

/** Compiles (once) a validator for the schema at `tokens` inside the contract. */
function validatorAt(tokens: readonly string[]): ValidateFunction {
  const ref = CONTRACT_ID + pointer(tokens);
  let validate = validators.get(ref);
  if (!validate) {
    if (at(tokens) === undefined) throw new Error(`contract harness: no schema at ${ref}`);
    try {
      validate = ajv.compile({ $ref: ref });
    } catch (err) {
      throw new Error(`contract harness: schema ${ref} does not compile under Ajv 2020: ${String(err)}`);
    }
    validators.set(ref, validate);
  }
  return validate;
}

// ---------------------------------------------------------------------------
// Reporting
// ---------------------------------------------------------------------------

const MAX_ERRORS = 25;
const EXCERPT_CHARS = 400;

function excerpt(body: unknown): string {
  let text: string;
  try {
    text = body === undefined ? 'undefined' : JSON.stringify(body) ?? String(body);
  } catch {
    text = String(body);
  }
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}… (${text.length} chars)` : text;
}

function formatErrors(errors: readonly ErrorObject[] | null | undefined): string {
  const list = errors ?? [];
  const lines = list.slice(0, MAX_ERRORS).map((e) => {
    const where = e.instancePath === '' ? '(root)' : e.instancePath;
    const params = Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : '';
    return `  - ${where} ${e.message ?? e.keyword}${params}`;
  });
  if (list.length > MAX_ERRORS) lines.push(`  … and ${list.length - MAX_ERRORS} more`);
  return lines.join('\n');
}

function check(validate: ValidateFunction, value: unknown, what: string): void {
  if (validate(value)) return;
  throw new Error(`${what} does not fit the contract:\n${formatErrors(validate.errors)}\nbody: ${excerpt(value)}`);
}

// ---------------------------------------------------------------------------
// Operations and routing
// ---------------------------------------------------------------------------

interface IndexedOperation {
  operationId: string;
  path: string;
  method: string;
  /** Lower-case method key inside the path item. */
  methodKey: string;
  /** `null` marks a `{param}` segment. */
  segments: (string | null)[];
}

const indexedOperations: IndexedOperation[] = [];
for (const path of Object.keys(contract.paths as JsonObject)) {
  const pathItem = deref(['paths', path]).value;
  if (!isObject(pathItem)) continue;
  for (const methodKey of HTTP_METHODS) {
    const op = pathItem[methodKey];
    if (!isObject(op)) continue;
    indexedOperations.push({
      operationId: typeof op.operationId === 'string' ? op.operationId : `${methodKey.toUpperCase()} ${path}`,
      path,
      method: methodKey.toUpperCase(),
      methodKey,
      segments: splitPath(path).map((s) => (/^\{[^}]+\}$/.test(s) ? null : s)),
    });
  }
}

export const contractOperationCount: number = indexedOperations.length;

/** '/a/b' -> ['a', 'b'] (paths always start with '/'). */
function splitPath(path: string): string[] {
  return path.split('/').slice(1);
}

function normalizeRequestPath(raw: string): string[] {
  let path = raw.split(/[?#]/, 1)[0] ?? '';
  if (path === BASE_PATH || path.startsWith(BASE_PATH + '/')) path = path.slice(BASE_PATH.length);
  if (!path.startsWith('/')) path = '/' + path;
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return splitPath(path).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
}

function findIndexed(method: string, path: string): IndexedOperation | undefined {
  const wantedMethod = method.toUpperCase();
  const segments = normalizeRequestPath(path);
  let best: IndexedOperation | undefined;
  for (const op of indexedOperations) {
    if (op.method !== wantedMethod || op.segments.length !== segments.length) continue;
    if (!op.segments.every((s, i) => (s === null ? segments[i] !== '' : s === segments[i]))) continue;
    if (!best || moreSpecific(op, best)) best = op;
  }
  return best;
}

/** Static segments beat parameters, decided at the first segment where the two differ. */
function moreSpecific(a: IndexedOperation, b: IndexedOperation): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    const aStatic = a.segments[i] !== null;
    const bStatic = b.segments[i] !== null;
    if (aStatic !== bStatic) return aStatic;
  }
  return false;
}

/** Finds the contract operation for a concrete request path (already stripped of the `/2025-10-13` base), e.g. GET /customers/Customer:abc -> the `/customers/{customerId}` operation. Static segments beat parameters (so /customers/end-user-terms is not /customers/{customerId}). Returns undefined when none. */
export function findOperation(
  method: string,
  path: string,
): { operationId: string; path: string; method: string } | undefined {
  const op = findIndexed(method, path);
  return op && { operationId: op.operationId, path: op.path, method: op.method };
}

// ---------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------

function isJsonMediaType(mediaType: string): boolean {
  const base = mediaType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return base === 'application/json' || /^application\/[\w.+-]*\+json$/.test(base) || base === '*/*';
}

/** Pointer to the JSON body schema of a response/requestBody object at `tokens`, or undefined if it has none. */
function jsonSchemaTokens(tokens: readonly string[]): readonly string[] | undefined {
  const { value, tokens: where } = deref(tokens);
  if (!isObject(value) || !isObject(value.content)) return undefined;
  const mediaType = Object.keys(value.content).find(isJsonMediaType);
  if (mediaType === undefined) return undefined;
  const media = value.content[mediaType];
  if (!isObject(media) || media.schema === undefined) return undefined;
  return [...where, 'content', mediaType, 'schema'];
}

/** The sandbox's error envelope `{ status, code, message, details? }` with `status` equal to the HTTP status. */
export function assertErrorEnvelope(body: unknown, status: number, label = 'error body'): void {
  const b = body as { status?: unknown; code?: unknown; message?: unknown; details?: unknown } | null;
  const ok =
    isObject(b) &&
    b.status === status &&
    typeof b.code === 'string' &&
    b.code.length > 0 &&
    typeof b.message === 'string' &&
    (b.details === undefined || isObject(b.details));
  if (!ok) throw new Error(`${label}: not an error envelope with status ${status}\nbody: ${excerpt(body)}`);
}

function isEmptyBody(body: unknown): boolean {
  if (body === undefined || body === null || body === '') return true;
  if (body instanceof ArrayBuffer) return body.byteLength === 0;
  if (ArrayBuffer.isView(body)) return body.byteLength === 0;
  return false;
}

/** Validates a JSON response body against the contract's schema for (method, path, status). Throws an Error with a readable message (operationId, status, ajv errors with instancePath, and a short excerpt of the body) when it does not fit, or when the contract declares no such status for the operation and there is no `default` response. If the response has no JSON content schema in the contract (e.g. 204), the body must be empty/undefined. */
export function assertFitsContract(method: string, path: string, status: number, body: unknown): void {
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new Error(`assertFitsContract: ${String(status)} is not an HTTP status`);
  }
  const op = findIndexed(method, path);
  const generic = GENERIC_ERROR_SCHEMAS[status];
  if (!op) {
    // No operation for (method, path): only the server's generic answers (e.g. 404 for an
    // unknown route, 405 for a wrong method) can be checked.
    if (generic) {
      // Not a contract operation, so no contract code list applies: check the envelope only.
      assertErrorEnvelope(body, status, `${method.toUpperCase()} ${path} (no contract operation)`);
      return;
    }
    throw new Error(`assertFitsContract: no contract operation for ${method.toUpperCase()} ${path} (status ${status})`);
  }

  const label = `${op.operationId} (${op.method} ${op.path}) ${status}`;
  const opTokens = ['paths', op.path, op.methodKey];
  const responses = deref([...opTokens, 'responses']);
  const declared = isObject(responses.value) ? Object.keys(responses.value) : [];

  // Exact status, then an `NXX` range, then the generic error schemas, then `default`.
  const range = `${String(status)[0]}XX`;
  const key = [String(status), range, range.toLowerCase()].find((k) => declared.includes(k));
  if (key === undefined && generic) {
    check(validatorAt(['components', 'schemas', generic]), body, `${label} (undeclared; generic ${generic})`);
    return;
  }
  const responseKey = key ?? (declared.includes('default') ? 'default' : undefined);
  if (responseKey === undefined) {
    throw new Error(
      `${label}: status ${status} is not declared by the contract (declared: ${declared.join(', ') || 'none'})\nbody: ${excerpt(body)}`,
    );
  }

  const schemaTokens = jsonSchemaTokens([...responses.tokens, responseKey]);
  if (schemaTokens === undefined) {
    if (!isEmptyBody(body)) {
      throw new Error(`${label}: the contract declares no JSON body for this response, but got one\nbody: ${excerpt(body)}`);
    }
    return;
  }
  if (body === undefined) throw new Error(`${label}: the contract declares a JSON body, but the response had none`);
  check(validatorAt(schemaTokens), body, label);
}

/** Validates a webhook body against the contract's `webhooks` entry whose POST requestBody schema matches; `name` is the key under `webhooks` (e.g. 'incoming-payment'). */
export function assertFitsWebhook(name: string, body: unknown): void {
  const webhooks = isObject(contract.webhooks) ? contract.webhooks : {};
  if (!(name in webhooks)) {
    throw new Error(`assertFitsWebhook: no webhook '${name}' in the contract (known: ${Object.keys(webhooks).join(', ')})`);
  }
  const item = deref(['webhooks', name]);
  if (!isObject(item.value) || !isObject(item.value.post)) {
    throw new Error(`assertFitsWebhook: webhook '${name}' has no POST operation`);
  }
  const schemaTokens = jsonSchemaTokens([...item.tokens, 'post', 'requestBody']);
  if (schemaTokens === undefined) throw new Error(`assertFitsWebhook: webhook '${name}' has no JSON request body schema`);
  check(validatorAt(schemaTokens), body, `webhook '${name}'`);
}

/** Validates any value against a named component schema, e.g. 'PlatformConfig'. */
export function assertFitsSchema(schemaName: string, value: unknown): void {
  const schemas = isObject(contract.components) && isObject(contract.components.schemas) ? contract.components.schemas : {};
  if (!(schemaName in schemas)) throw new Error(`assertFitsSchema: no component schema '${schemaName}' in the contract`);
  check(validatorAt(['components', 'schemas', schemaName]), value, `schema ${schemaName}`);
}

/**
 * Compiles every schema the harness can be asked about: each JSON response body of
 * each operation, each webhook request body, and each component schema. Returns what
 * compiled and what did not (with Ajv's message), so a test can prove the whole
 * contract compiles instead of discovering it one assertion at a time.
 */
export function compileAllContractSchemas(): { compiled: number; failures: { ref: string; error: string }[] } {
  const targets: (readonly string[])[] = [];
  for (const op of indexedOperations) {
    const responses = deref(['paths', op.path, op.methodKey, 'responses']);
    if (!isObject(responses.value)) continue;
    for (const status of Object.keys(responses.value)) {
      const tokens = jsonSchemaTokens([...responses.tokens, status]);
      if (tokens) targets.push(tokens);
    }
  }
  for (const name of Object.keys(isObject(contract.webhooks) ? contract.webhooks : {})) {
    const item = deref(['webhooks', name]);
    const tokens = jsonSchemaTokens([...item.tokens, 'post', 'requestBody']);
    if (tokens) targets.push(tokens);
  }
  const components = isObject(contract.components) ? contract.components : {};
  for (const name of Object.keys(isObject(components.schemas) ? components.schemas : {})) {
    targets.push(['components', 'schemas', name]);
  }
  let compiled = 0;
  const failures: { ref: string; error: string }[] = [];
  for (const tokens of targets) {
    try {
      validatorAt(tokens);
      compiled++;
    } catch (err) {
      failures.push({ ref: CONTRACT_ID + pointer(tokens), error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { compiled, failures };
}
