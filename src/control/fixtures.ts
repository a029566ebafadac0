import { FixtureError } from '../core/fixture-text.js';
import type { SandboxContext } from '../store/context.js';
import { platformService } from '../tenancy/index.js';
import { FIXTURE_HEADER, requestsStarted } from './changes.js';

/**
 * Fixtures: a declarative file of platforms, customers, accounts, balances, quotes and any
 * other operation, applied as in-process API calls (the same validation, services, ids and
 * events as over HTTP) inside ONE SQLite transaction: a failed entry leaves nothing behind.
 *
 * ```yaml
 * platforms:
 *   - clientId: acme            # omitted: the platform whose credentials load the file
 *     clientSecret: acme-secret-1
 *     regulated: false
 *     config: { webhookEndpoint: http://127.0.0.1:4000/webhooks }   # PATCH /config body
 *     balances: { USD: 1000000 }                                    # the platform's own accounts
 *     customers:
 *       - ref: alice                # names the customer for {{alice}} / {{alice.USD}}
 *         customerType: INDIVIDUAL  # ...the POST /customers body...
 *         kyc: HOLD                 # optional decision (APPROVED, REJECTED or HOLD) of a customer under review (final once made)
 *         verify: [email]           # contact channels to verify (code 123456)
 *         balances: { USD: 50000 }
 *         externalAccounts: [ { ref: alice-bank, currency: USD, accountInfo: {...} } ]
 *     quotes: [ { ref: q1, source: { sourceType: ACCOUNT, accountId: "{{alice.USD}}" }, ..., execute: true } ]
 *     requests: [ { method: POST, path: /cards, body: {...}, ref: card1 } ]   # any other operation
 * ```
 */
export interface FixtureDocument {
  platforms: FixturePlatform[];
}

interface FixtureRefs {
  ref?: string;
}
interface FixturePlatform {
  clientId?: string;
  clientSecret?: string;
  regulated?: boolean;
  paperworkSkipping?: boolean;
  config?: Record<string, unknown>;
  balances?: Record<string, number>;
  customers?: (Record<string, unknown> & FixtureRefs)[];
  externalAccounts?: (Record<string, unknown> & FixtureRefs)[];
  quotes?: (Record<string, unknown> & FixtureRefs)[];
  requests?: ({ method?: string; path?: string; body?: unknown } & FixtureRefs)[];
}

/** What a load created. */
export interface FixtureSummary {
  platforms: number;
  customers: number;
  externalAccounts: number;
  fundings: number;
  quotes: number;
  requests: number;
}

/** Answers an in-process request (the sandbox app's `fetch`). */
export type Dispatch = (request: Request) => Response | Promise<Response>;

const PLATFORM_KEYS = new Set(['clientId', 'clientSecret', 'regulated', 'paperworkSkipping', 'config', 'balances', 'customers', 'externalAccounts', 'quotes', 'requests']);
const TEMPLATE = /^\{\{\s*([A-Za-z0-9_.-]+?)(?:\.([A-Z]{3,4}))?\s*\}\}$/;

/**
 * Applies a fixture document through `dispatch` in one transaction. `auth` are the credentials
 * of the loading platform (entries without clientId). Throws FixtureError and writes nothing
 * if any entry fails.
 */
export async function applyFixtures(
  ctx: SandboxContext,
  dispatch: Dispatch,
  input: unknown,
  options: { file: string; clientId: string; clientSecret: string },
): Promise<FixtureSummary> {
  const { file } = options;
  const fail = (entry: string, field: string | undefined, reason: string): never => {
    throw new FixtureError(file, entry, field, reason);
  };
  const doc = input as Partial<FixtureDocument> | null;
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.platforms)) fail('the file', 'platforms', 'expected a list of platforms');
  const summary: FixtureSummary = { platforms: 0, customers: 0, externalAccounts: 0, fundings: 0, quotes: 0, requests: 0 };

  // Writes of this turn waiting for their group commit go first: the load is a transaction of its own.
  ctx.commitNow();
  if (ctx.db.inTransaction) fail('the file', undefined, 'another load is running');
  ctx.db.exec('BEGIN IMMEDIATE');
  // The calls below are in-process and settle in microtasks, so no other request runs inside
  // this transaction; if one ever did (it would see, and lose, uncommitted rows), the load fails.
  const others = requestsStarted(ctx);
  const othersBefore = others.count;
  try {
    for (const [p, platform] of doc!.platforms!.entries()) {
      const where = `platforms[${p}]`;
      if (!platform || typeof platform !== 'object') fail(where, undefined, 'expected an object');
      for (const key of Object.keys(platform)) if (!PLATFORM_KEYS.has(key)) fail(where, key, `unknown key (expected one of ${[...PLATFORM_KEYS].join(', ')})`);
      let auth = { clientId: options.clientId, clientSecret: options.clientSecret };
      const refs = new Map<string, string>();
      const accountsOf = new Map<string, Map<string, string>>();

      const call = async (entry: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
        const headers: Record<string, string> = {
          Authorization: `Basic ${Buffer.from(`${auth.clientId}:${auth.clientSecret}`).toString('base64')}`,
          [FIXTURE_HEADER]: '1',
        };
        if (body !== undefined) headers['Content-Type'] = 'application/json';
        if (method === 'POST' && path.startsWith('/2025-10-13/')) headers['Idempotency-Key'] = ctx.ids.uuid();
        const response = await dispatch(new Request(`http://fixtures.local${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
        const text = await response.text();
        const json = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
        if (response.status >= 400) {
          const details = json.details as { errors?: { field: string; message: string }[] } | undefined;
          const first = details?.errors?.[0];
          fail(entry, first?.field, `${method} ${path.replace(/^\/2025-10-13/, '')} answered ${response.status} ${String(json.code)}: ${first?.message ?? String(json.message)}`);
        }
        return json;
      };
      const resolve = (entry: string, value: unknown, path = ''): unknown => {
        if (typeof value === 'string') {
          const match = TEMPLATE.exec(value);
          if (!match) return value;
          const [, ref, currency] = match;
          if (currency) {
            const id = accountsOf.get(ref!)?.get(currency);
            return id ?? fail(entry, path || undefined, `{{${ref}.${currency}}}: ${accountsOf.has(ref!) ? `no ${currency} internal account` : `no customer "${ref}" above`}`);
          }
          return refs.get(ref!) ?? fail(entry, path || undefined, `{{${ref}}}: nothing named "${ref}" above this entry`);
        }
        if (Array.isArray(value)) return value.map((v, i) => resolve(entry, v, `${path}${path ? '.' : ''}${i}`));
        if (value && typeof value === 'object') {
          return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(entry, v, `${path}${path ? '.' : ''}${k}`)]));
        }
        return value;
      };
      const name = (entry: string, ref: unknown, id: string) => {
        if (ref === undefined) return;
        if (typeof ref !== 'string' || !/^[A-Za-z0-9_-]+$/.test(ref)) fail(entry, 'ref', 'a ref is letters, digits, - and _');
        if (refs.has(ref as string)) fail(entry, 'ref', `"${String(ref)}" is used twice`);
        refs.set(ref as string, id);
      };
      const loadAccounts = async (entry: string, ref: string, path: string) => {
        const page = await call(entry, 'GET', path);
        accountsOf.set(ref, new Map((page.data as { id: string; balance: { currency: { code: string } } }[]).map((a) => [a.balance.currency.code, a.id])));
      };
      const fund = async (entry: string, ref: string, balances: unknown) => {
        if (balances === undefined) return;
        if (!balances || typeof balances !== 'object') fail(entry, 'balances', 'expected { "<currency>": <amount in the smallest unit> }');
        for (const [currency, amount] of Object.entries(balances as Record<string, unknown>)) {
          const id = accountsOf.get(ref)?.get(currency) ?? fail(entry, `balances.${currency}`, `no ${currency} internal account`);
          if (!Number.isInteger(amount) || (amount as number) <= 0) fail(entry, `balances.${currency}`, 'expected a positive whole number in the smallest unit');
          await call(entry, 'POST', `/2025-10-13/sandbox/internal-accounts/${encodeURIComponent(id)}/fund`, { amount });
          summary.fundings += 1;
        }
      };
      const externalAccount = async (entry: string, body: Record<string, unknown>, customerId?: string) => {
        const { ref, ...rest } = body;
        const created = await call(
          entry,
          'POST',
          customerId ? '/2025-10-13/customers/external-accounts' : '/2025-10-13/platform/external-accounts',
          resolve(entry, customerId ? { customerId, ...rest } : rest),
        );
        name(entry, ref, String(created.id));
        summary.externalAccounts += 1;
      };

      if (platform.clientId !== undefined) {
        if (!platform.clientSecret) fail(where, 'clientSecret', 'required with clientId');
        const known = platformService(ctx).list().some((p) => p.clientId === platform.clientId);
        if (known && !(await platformService(ctx).authenticate(platform.clientId, platform.clientSecret!))) {
          fail(where, 'clientSecret', `platform ${platform.clientId} exists with another secret`);
        }
        if (!known) {
          await call(where, 'POST', '/_sandbox/platforms', {
            clientId: platform.clientId, clientSecret: platform.clientSecret, regulated: platform.regulated ?? true, paperworkSkipping: platform.paperworkSkipping ?? false,
          });
        }
        auth = { clientId: platform.clientId, clientSecret: platform.clientSecret! };
      }
      summary.platforms += 1;
      if (platform.config !== undefined) await call(`${where}.config`, 'PATCH', '/2025-10-13/config', platform.config);
      await loadAccounts(where, 'platform', '/2025-10-13/platform/internal-accounts');
      await fund(where, 'platform', platform.balances);

      for (const [c, customer] of (platform.customers ?? []).entries()) {
        const entry = `${where}.customers[${c}]${customer.ref ? ` (${String(customer.ref)})` : ''}`;
        const { ref, kyc, verify, balances, externalAccounts, ...body } = customer as Record<string, unknown>;
        const created = await call(entry, 'POST', '/2025-10-13/customers', resolve(entry, body));
        const id = String(created.id);
        name(entry, ref, id);
        summary.customers += 1;
        const key = typeof ref === 'string' ? ref : id;
        for (const channel of (verify as string[] | undefined) ?? []) {
          if (channel !== 'email' && channel !== 'phone') fail(entry, 'verify', `"${channel}" is not email or phone`);
          await call(entry, 'POST', `/2025-10-13/customers/${encodeURIComponent(id)}/verify-${channel}`);
          await call(entry, 'POST', `/2025-10-13/customers/${encodeURIComponent(id)}/verify-${channel}/confirm`, { code: '123456' });
        }
        if (kyc !== undefined) await call(entry, 'POST', `/_sandbox/customers/${encodeURIComponent(id)}/kyc-decision`, { decision: kyc });
        await loadAccounts(entry, key, `/2025-10-13/customers/internal-accounts?customerId=${encodeURIComponent(id)}&limit=100`);
        await fund(entry, key, balances);
        for (const [a, account] of ((externalAccounts as Record<string, unknown>[] | undefined) ?? []).entries()) {
          await externalAccount(`${entry}.externalAccounts[${a}]`, account, id);
        }
      }
      for (const [a, account] of (platform.externalAccounts ?? []).entries()) await externalAccount(`${where}.externalAccounts[${a}]`, account);
      for (const [q, quote] of (platform.quotes ?? []).entries()) {
        const entry = `${where}.quotes[${q}]${quote.ref ? ` (${String(quote.ref)})` : ''}`;
        const { ref, execute, ...body } = quote as Record<string, unknown>;
        const created = await call(entry, 'POST', '/2025-10-13/quotes', resolve(entry, body));
        name(entry, ref, String(created.id));
        if (execute === true) await call(entry, 'POST', `/2025-10-13/quotes/${encodeURIComponent(String(created.id))}/execute`);
        summary.quotes += 1;
      }
      for (const [r, request] of (platform.requests ?? []).entries()) {
        const entry = `${where}.requests[${r}]${request.ref ? ` (${request.ref})` : ''}`;
        const method = String(request.method ?? 'POST').toUpperCase();
        if (typeof request.path !== 'string' || !request.path.startsWith('/')) fail(entry, 'path', 'expected an API path such as /cards');
        const path = String(resolve(entry, request.path, 'path'));
        const created = await call(entry, method, path.startsWith('/_sandbox') ? path : `/2025-10-13${path}`, request.body === undefined ? undefined : resolve(entry, request.body, 'body'));
        if (request.ref !== undefined) name(entry, request.ref, String(created.id));
        summary.requests += 1;
      }
    }
    if (others.count !== othersBefore) fail('the file', undefined, 'another request came in while the load ran; nothing was kept, try again');
    ctx.db.exec('COMMIT');
    return summary;
  } catch (error) {
    if (ctx.db.inTransaction) ctx.db.exec('ROLLBACK');
    // Platforms created by the rolled-back load must not stay authenticated from the cache.
    platformService(ctx).invalidate();
    if (error instanceof FixtureError) throw error;
    throw new FixtureError(file, 'the file', undefined, (error as Error).message);
  }
}
