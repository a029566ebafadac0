import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { areas } from '../../src/index.js';
import { coverageOf } from '../../src/server/app.js';
import { operations, type ContractOperation } from '../../src/generated/operations.js';
import { assertFitsContract } from '../helpers/contract.js';
import { arbitraryOf, type Schema } from '../helpers/schema-arbitrary.js';
import { individual, useSandbox, type Api } from '../helpers/sandbox.js';

/**
 * Contract fuzz test (issue 10, section 4): for every BUILT operation (the server's own
 * coverage list, so each operation built later is fuzzed too: today all 153), schema-valid
 * requests generated from openapi.yaml's request schemas, seeded and bounded, with the
 * credentials the operation's contract names: HTTP Basic, a connected agent's bearer token for
 * the AgentAuth operations (`/agents/me/*`), none where it names none. Each answer: no 5xx, a
 * status the contract lists for the operation (404 also where the path names a resource), a
 * body that validates. `FUZZ_SEED` / `FUZZ_RUNS` change the seed and the requests per operation.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20251013);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20);

const contract = JSON.parse(readFileSync(new URL('../../fixtures/contract.json', import.meta.url), 'utf8')) as Schema;
// Deletions last, so the seeded resources serve every other operation first.
const implemented = [...coverageOf(areas).implemented].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));

const s = useSandbox();

function resolve(ref: string): Schema {
  if (!ref.startsWith('#/')) throw new Error(`non-local $ref ${ref}`);
  let node: any = contract;
  for (const token of ref.slice(2).split('/')) node = node?.[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
  return node as Schema;
}
const deref = (value: Schema): Schema => (typeof value?.$ref === 'string' ? deref(resolve(value.$ref)) : value);

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

/** A generated request. */
interface FuzzRequest {
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: { json: unknown } | { form: Record<string, unknown> };
}

/** Real ids of the fuzz platform, by the parameter or property name that carries them. */
const pools = new Map<string, string[]>();
/** The bearer token of a connected agent of the fuzz platform's customer (AgentAuth operations). */
let agentToken = '';
const FILE = Symbol('file');
/** Deliveries must not leave the machine: a webhook endpoint is a closed local port. */
const LOCAL_ENDPOINT = 'http://127.0.0.1:9/webhooks';

function override(name: string | undefined, schema: Schema): fc.Arbitrary<unknown> | undefined {
  if (schema?.format === 'binary') return fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ({ [FILE]: bytes }));
  if (name === 'webhookEndpoint') return fc.constant(LOCAL_ENDPOINT);
  const pool = name ? pools.get(name) : undefined;
  const resolvedType = deref(schema ?? {}).type;
  if (pool && pool.length && (resolvedType === 'string' || resolvedType === undefined) && !deref(schema ?? {}).enum) {
    const own = arbitraryOf(schema, { resolve });
    return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: own });
  }
  return undefined;
}

function serialize(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function requestArbitrary(op: ContractOperation): fc.Arbitrary<FuzzRequest> {
  const item = contract.paths[op.path] as Schema;
  const operation = item[op.method.toLowerCase()] as Schema;
  const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p: Schema) => deref(p) as Parameter);
  const options = { resolve, override };
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of parameters) {
    if (p.in === 'path') {
      // A path segment must be non-empty to reach this operation at all.
      parts[`path:${p.name}`] = arbitraryOf({ ...deref(p.schema), minLength: Math.max(1, deref(p.schema).minLength ?? 1) }, options, p.name);
    } else if (p.in === 'query' || p.in === 'header') {
      let schema = deref(p.schema);
      if (p.in === 'header') schema = { type: 'string', pattern: '^[A-Za-z0-9-]{1,40}$' };
      const arb = arbitraryOf(schema, options, p.name);
      parts[`${p.in}:${p.name}`] = p.required ? arb : fc.option(arb, { nil: undefined, freq: 2 });
    }
  }
  const requestBody = operation.requestBody ? deref(operation.requestBody) : undefined;
  const json = requestBody?.content?.['application/json']?.schema as Schema | undefined;
  const form = requestBody?.content?.['multipart/form-data']?.schema as Schema | undefined;
  if (json || form) {
    const arb = arbitraryOf((json ?? form)!, options);
    parts.body = requestBody!.required ? arb : fc.option(arb, { nil: undefined, freq: 4 });
  }
  return fc.record(parts).map((values) => {
    let path = op.path;
    const query: [string, string][] = [];
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined || key === 'body') continue;
      const [where, name] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
      if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(serialize(value)));
      else if (where === 'header') headers[name] = serialize(value);
      else if (Array.isArray(value)) for (const v of value) query.push([name, serialize(v)]);
      else query.push([name, serialize(value)]);
    }
    const request: FuzzRequest = { path, query, headers };
    if (values.body !== undefined) request.body = json ? { json: values.body } : { form: values.body as Record<string, unknown> };
    return request;
  });
}

function formDataOf(fields: Record<string, unknown>): FormData {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (value && typeof value === 'object' && FILE in value) data.append(key, new Blob([new Uint8Array((value as Record<symbol, Uint8Array>)[FILE]!)]), `${key}.bin`);
    else if (value !== undefined) data.append(key, serialize(value));
  }
  return data;
}

/** Statuses the contract lists for the operation. */
function documentedStatuses(op: ContractOperation): Set<string> {
  const operation = contract.paths[op.path][op.method.toLowerCase()] as Schema;
  return new Set(Object.keys(operation.responses ?? {}));
}

async function send(api: Api, op: ContractOperation, request: FuzzRequest): Promise<{ status: number; body: unknown }> {
  const search = new URLSearchParams(request.query).toString();
  const url = `${api.sandbox.baseUrl}${request.path}${search ? `?${search}` : ''}`;
  const headers: Record<string, string> = { ...request.headers };
  if (op.security === undefined || op.security.includes('BasicAuth')) headers.Authorization = `Basic ${Buffer.from(`${api.clientId}:${api.clientSecret}`).toString('base64')}`;
  else if (op.security.includes('AgentAuth')) headers.Authorization = `Bearer ${agentToken}`;
  let body: RequestInit['body'];
  if (request.body && 'json' in request.body) {
    body = JSON.stringify(request.body.json);
    headers['Content-Type'] = 'application/json';
  } else if (request.body) {
    body = formDataOf(request.body.form);
  }
  const response = await fetch(url, { method: op.method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed };
}

function describeRequest(op: ContractOperation, request: FuzzRequest): string {
  return `${op.method} ${request.path}${request.query.length ? `?${new URLSearchParams(request.query)}` : ''} ${request.body ? JSON.stringify('json' in request.body ? request.body.json : request.body.form).slice(0, 600) : ''}`;
}

describe('contract fuzz: every built operation answers schema-valid requests as the contract says', () => {
  let api: Api;

  beforeAll(async () => {
    api = await s.api.newPlatform();
    // Real resources, so generated requests reach past the 404s.
    const customer = (await api.post('/customers', individual(['USD', 'EUR']))).body;
    const business = (await api.post('/customers', {
      customerType: 'BUSINESS',
      businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber: 'REG-777' },
    })).body;
    const accounts = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&limit=100`)).body.data as { id: string }[];
    const external = (await api.post('/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456789', routingNumber: '021000021', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } } },
    }, { unchecked: true })).body;
    const funded = accounts[0] ? (await api.post(`/sandbox/internal-accounts/${encodeURIComponent(accounts[0].id)}/fund`, { amount: 100_000 }, { unchecked: true })).body : undefined;
    const owner = (await api.post('/beneficial-owners', {
      customerId: business.id, roles: ['UBO'], ownershipPercentage: 30,
      personalInfo: { firstName: 'Ann', lastName: 'Lee', birthDate: '1980-01-01', nationality: 'US', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } },
    }, { unchecked: true })).body;
    // A connected agent of the customer, with every permission and room in its limits, so the agent operations get past authentication and policy.
    const agent = (await api.post('/agents', {
      name: 'Fuzz agent',
      customerId: customer.id,
      policy: {
        permissions: ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'],
        defaultExecutionMode: 'AUTO',
        spendingLimits: { currency: 'USD', perTransactionLimit: 1_000_000_00 },
      },
    })).body;
    const redeemed = await api.post(`/agents/device-codes/${encodeURIComponent(agent.deviceCode.code)}/redeem`, undefined, { auth: false });
    if (redeemed.status !== 200) throw new Error(`agent redeem failed: ${JSON.stringify(redeemed.body)}`);
    agentToken = redeemed.body.accessToken;
    const add = (name: string, ...ids: (string | undefined)[]) => pools.set(name, [...(pools.get(name) ?? []), ...ids.filter((id): id is string => typeof id === 'string')]);
    add('customerId', customer.id, business.id);
    add('accountId', ...accounts.map((a) => a.id), external?.id);
    add('internalAccountId', ...accounts.map((a) => a.id));
    add('sourceAccountId', ...accounts.map((a) => a.id));
    add('externalAccountId', external?.id);
    add('destinationAccountId', external?.id);
    add('transactionId', funded?.id);
    add('beneficialOwnerId', owner?.id);
    add('senderUmaAddress', '$success.usd@sandbox.uma.money', '$pending.long.usd@sandbox.uma.money', '$fail.compliance.usd@sandbox.uma.money');
    add('receiverUmaAddress', customer.umaAddress, '$success.eur@sandbox.uma.money');
    add('umaAddress', customer.umaAddress);
    // Plausible values for fields the sandbox checks beyond the contract's schema, so requests reach the rules behind them.
    for (const name of ['currency', 'currencyCode', 'receivingCurrencyCode', 'sourceCurrency', 'destinationCurrency', 'currencies', 'lockedCurrencySide']) add(name, 'USD', 'EUR', 'MXN');
    for (const name of ['region', 'country', 'nationality', 'countryOfResidence', 'countryCode', 'countryOfIssuance', 'countriesOfOperation']) add(name, 'US', 'DE', 'MX');
    add('umaDomain', 'example.com');
    add('email', 'jane.smith@example.com');
    add('ipAddress', '203.0.113.7');
    add('phoneNumber', '+14155551234');
    add('fullName', 'Jane Smith', 'Ann Lee001', 'Bob Stone002');
  });

  it('fuzzes every operation of the contract, the agent operations with a bearer token', () => {
    expect(implemented.map((op) => op.operationId).sort()).toEqual(operations.map((op) => op.operationId).sort());
    expect(implemented.length).toBe(153);
    expect(implemented.filter((op) => op.security?.includes('AgentAuth')).length).toBe(15);
    expect(agentToken).toMatch(/\S{20,}/);
  });

  it.each(implemented.map((op) => [op.operationId, op] as const))('%s', async (_operationId, op) => {
    const documented = documentedStatuses(op);
    const hasPathId = op.path.includes('{');
    await fc.assert(
      fc.asyncProperty(requestArbitrary(op), async (request) => {
        const { status, body } = await send(api, op, request);
        if (process.env.FUZZ_DEBUG) console.log(`FUZZ ${op.operationId} ${status} ${status >= 400 ? JSON.stringify((body as { details?: unknown })?.details ?? body).slice(0, 160) : ''}`);
        const what = `${op.operationId}: ${describeRequest(op, request)} -> ${status} ${JSON.stringify(body)?.slice(0, 400)}`;
        // No 5xx, except a 501 the contract documents for this request (e.g. non-USD fee configs).
        expect(status < 500 || (status === 501 && documented.has('501')), what).toBe(true);
        // A status the contract lists; 404 also where the path names a resource that may not exist.
        expect(documented.has(String(status)) || (status === 404 && hasPathId), `undocumented status: ${what}`).toBe(true);
        assertFitsContract(op.method, request.path.split('?')[0]!, status, body);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});
