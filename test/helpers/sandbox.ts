import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/index.js';
import { assertErrorEnvelope, assertFitsContract } from './contract.js';

/** A response as tests see it. `body` is parsed JSON (or the raw text when it is not JSON). */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Request options of the test client. */
export interface RequestOptions {
  body?: unknown;
  /** A raw body (FormData, string, bytes) sent as is. */
  rawBody?: RequestInit['body'];
  headers?: Record<string, string>;
  /** Other credentials, or `false` for none. */
  auth?: { clientId: string; clientSecret: string } | false;
  /** Skip contract validation (only for deliberately non-contract calls). */
  unchecked?: boolean;
}

const basic = (clientId: string, clientSecret: string) =>
  `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;

/**
 * A black-box HTTP client for one platform. Every response of a contract operation is
 * validated against the contract; every error of a control-plane call must be an envelope.
 */
export class Api {
  constructor(
    readonly sandbox: RunningSandbox,
    readonly clientId: string = sandbox.clientId,
    readonly clientSecret: string = sandbox.clientSecret,
  ) {}

  /** A client for another platform of the same sandbox. */
  as(clientId: string, clientSecret: string): Api {
    return new Api(this.sandbox, clientId, clientSecret);
  }

  /** Calls `path` under the API base (`/2025-10-13`) or, when it starts with `/_sandbox` or `//`, under the origin. */
  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const controlPlane = path.startsWith('/_sandbox');
    const url = controlPlane ? `${this.sandbox.origin}${path}` : `${this.sandbox.baseUrl}${path}`;
    const headers: Record<string, string> = { ...options.headers };
    const auth = options.auth === undefined ? { clientId: this.clientId, clientSecret: this.clientSecret } : options.auth;
    if (auth) headers.Authorization = basic(auth.clientId, auth.clientSecret);
    let body: RequestInit['body'] = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!options.unchecked) {
      const pathOnly = path.split('?')[0]!;
      if (controlPlane) {
        if (response.status >= 400) assertErrorEnvelope(parsed, response.status, `${method} ${pathOnly}`);
      } else {
        assertFitsContract(method, pathOnly, response.status, parsed);
      }
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  put<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }

  /** Moves the sandbox clock through the control plane. */
  async advance(seconds: number): Promise<string> {
    const response = await this.post<{ now: string }>('/_sandbox/clock/advance', { seconds });
    if (response.status !== 200) throw new Error(`clock advance failed: ${JSON.stringify(response.body)}`);
    return response.body.now;
  }

  /** Creates another platform and returns a client for it. */
  async newPlatform(settings: { regulated?: boolean; paperworkSkipping?: boolean } = {}): Promise<Api> {
    const clientId = unique('platform');
    const clientSecret = `secret-${randomUUID()}`;
    const response = await this.post('/_sandbox/platforms', { clientId, clientSecret, ...settings });
    if (response.status !== 201) throw new Error(`platform creation failed: ${JSON.stringify(response.body)}`);
    return this.as(clientId, clientSecret);
  }
}

type Db = RunningSandbox['context']['db'];

/** Records the SQL text `db` prepares that `keep` accepts, until `stop()` puts `db.prepare` back. */
export function recordPrepared(db: Db, keep: (sql: string) => boolean): { seen: Set<string>; stop: () => void } {
  const seen = new Set<string>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    if (keep(sql)) seen.add(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  return { seen, stop: () => void (db.prepare = prepare as typeof db.prepare) };
}

/** SQLite's plan of a statement (the `detail` of each row), its parameters bound to placeholders (5 for `@limit` and `@cap`). */
export function queryPlan(db: Db, sql: string): string[] {
  const explain = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const named = [...sql.matchAll(/@(\w+)/g)];
  const rows = named.length
    ? explain.all(Object.fromEntries(named.map((m) => [m[1], m[1] === 'limit' || m[1] === 'cap' ? 5 : 'x'])))
    : explain.all(...[...sql.matchAll(/\?/g)].map(() => 1));
  return (rows as { detail: string }[]).map((row) => row.detail);
}

/** Every page of a list, following nextCursor; checks hasMore/nextCursor agree and totalCount is the same on each page. */
export async function everyPage(api: Api, path: string, limit = 2): Promise<{ ids: string[]; totalCount: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let totalCount: number | undefined;
  for (let page = 0; page < 100; page += 1) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api.get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (totalCount !== undefined) expect(res.body.totalCount).toBe(totalCount);
    totalCount = res.body.totalCount;
    ids.push(...res.body.data.map((row: { id: string }) => row.id));
    expect(res.body.hasMore).toBe(res.body.nextCursor !== undefined);
    if (!res.body.hasMore) return { ids, totalCount: totalCount! };
    cursor = res.body.nextCursor;
  }
  throw new Error('too many pages');
}

/** A unique, readable test value, e.g. `customer-3f9a1c2b`. */
export function unique(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/**
 * The per-file sandbox factory: starts one in-memory sandbox before the file's tests and
 * closes it after. Tests that need isolation create their own platform with `api.newPlatform()`.
 */
export function useSandbox(options: SandboxOptions = {}): { readonly api: Api; readonly sandbox: RunningSandbox } {
  let sandbox: RunningSandbox | undefined;
  let api: Api | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox(options);
    api = new Api(sandbox);
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  return {
    get api() {
      if (!api) throw new Error('useSandbox: the sandbox is not started yet (use it inside a test)');
      return api;
    },
    get sandbox() {
      if (!sandbox) throw new Error('useSandbox: the sandbox is not started yet (use it inside a test)');
      return sandbox;
    },
  };
}

/**
 * Runs `fn` against a sandbox of its own on a file database (group commit on, as a user's file
 * sandbox), then closes it and removes the file. `errors` collects what the sandbox logs as
 * errors: a commit group rolled back because a transaction in it failed after writing logs one.
 */
export async function withFileSandbox<T>(fn: (sandbox: RunningSandbox, errors: string[]) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-file-'));
  const errors: string[] = [];
  const sandbox = await startSandbox({ db: join(dir, 'sandbox.db'), logger: { ...silentLogger, error: (message) => errors.push(message) } });
  try {
    return await fn(sandbox, errors);
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What `fn` returns, or the code of the `ApiError` it throws: the outcomes of calls made in one turn. */
export function valueOrCode<T>(fn: () => T): T | string {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

/**
 * `text` with its last character changed: an id or a secret that certainly differs from it (a
 * fixed last character would equal the real one's for one id in sixteen).
 */
export const withLastChanged = (text: string): string => `${text.slice(0, -1)}${text.endsWith('0') ? '1' : '0'}`;

/** An individual in Germany (EU rules: contact data required), unique `platformCustomerId`; `extra` overrides fields. */
export function euIndividual(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerType: 'INDIVIDUAL',
    platformCustomerId: unique('eu'),
    fullName: 'Anna Schmidt',
    nationality: 'DE',
    region: 'DE',
    email: 'anna@example.de',
    phoneNumber: '+4915112345678',
    ...extra,
  };
}

/** A valid individual customer payload with a unique `platformCustomerId`; `extra` overrides fields. */
export function individual(currencies: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerType: 'INDIVIDUAL',
    platformCustomerId: unique('cust'),
    fullName: 'Jane Smith',
    birthDate: '1990-01-15',
    nationality: 'US',
    currencies,
    ...extra,
  };
}

/** A US checking account of `customerId` to pay out to (a `POST /customers/external-accounts` body). */
export function usdPayee(customerId: string): Record<string, unknown> {
  return {
    customerId,
    currency: 'USD',
    accountInfo: {
      accountType: 'USD_ACCOUNT',
      accountNumber: '12345678901',
      routingNumber: '021000021',
      bankAccountType: 'CHECKING',
      beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Pat Payee', countryOfResidence: 'US', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } },
    },
  };
}
