import { describe, expect, it } from 'vitest';
import { areas } from '../../src/resources/registry.js';
import { coverageOf } from '../../src/server/app.js';
import type { ContractOperation } from '../../src/generated/operations.js';
import { platformService } from '../../src/resources/platform/index.js';
import { extraUsdAccount } from '../resources/cards-helpers.js';
import { emailOtpLogin } from '../helpers/wallet-client.js';
import { individual, unique, useSandbox, type Api } from '../helpers/sandbox.js';
import { deref, exampleBodies, requestSchema, spec } from './examples-compose.js';

/**
 * Contract examples (issue 18): for every BUILT operation with a JSON request body, the bodies
 * composed from the `example` values of openapi.yaml's request schema (one body per oneOf branch
 * index), with the example ids (`Customer:019542f5-...`, `InternalAccount:...`) and the path
 * parameters replaced by real resources of a fresh platform. Every answer fits the contract (the
 * client checks it); none is a 5xx; no 404 says a sandbox address is unknown; a 400 only where
 * ALLOWED_400 lists it (each entry is also in the README, "Contract examples the sandbox refuses on purpose").
 */

/** A 400 the sandbox gives a contract example on purpose: operation, error code, when, and why. */
interface Allowed400 {
  operationId: string;
  code: string;
  /** Which of the operation's example bodies (all when absent). */
  when?: (body: any) => boolean;
  why: string;
}

const ALLOWED_400: Allowed400[] = [];

const s = useSandbox();

const operations = coverageOf(areas)
  .implemented.map((op) => ({ op, schema: requestSchema(op.method, op.path) }))
  .filter((entry): entry is { op: ContractOperation; schema: NonNullable<typeof entry.schema> } => entry.schema !== undefined)
  .map(({ op, schema }) => ({ op, bodies: exampleBodies(schema) }));

/** The names of the operation's required query parameters. */
function requiredQuery(op: ContractOperation): string[] {
  const item = spec.paths[op.path];
  return [...(item.parameters ?? []), ...(item[op.method.toLowerCase()].parameters ?? [])]
    .map((p: unknown) => deref(p))
    .filter((p: { in: string; required?: boolean }) => p.in === 'query' && p.required)
    .map((p: { name: string }) => p.name);
}

const ID = /^([A-Z][A-Za-z]+):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The real resources of one fresh platform, each made on first use: an APPROVED individual
 * with funded USD, EUR and an embedded wallet, a USD payee, a business with an owner, a quote,
 * its transaction, a card with an authorization, a connected agent.
 */
class World {
  private readonly made = new Map<string, Promise<any>>();
  constructor(readonly api: Api) {}

  private once<T>(key: string, make: () => Promise<T>): Promise<T> {
    if (!this.made.has(key)) this.made.set(key, make());
    return this.made.get(key)!;
  }

  private async ok(response: Promise<{ status: number; body: any }>, what: string): Promise<any> {
    const { status, body } = await response;
    if (status >= 300) throw new Error(`setup ${what}: ${status} ${JSON.stringify(body)}`);
    return body;
  }

  customer(): Promise<{ id: string }> {
    return this.once('customer', () =>
      this.ok(this.api.post('/customers', individual(['USD', 'EUR', 'USDC', 'USDB'], { email: `${unique('jane')}@example.com`, phoneNumber: '+14155550123' })), 'customer'),
    );
  }
  accounts(): Promise<{ id: string; type: string; balance: { currency: { code: string } } }[]> {
    return this.once('accounts', async () => {
      const customer = await this.customer();
      return (await this.ok(this.api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&limit=100`), 'accounts')).data;
    });
  }
  /** The customer's USD account, funded. */
  usd(): Promise<string> {
    return this.once('usd', async () => {
      const id = (await this.accounts()).find((a) => a.type !== 'EMBEDDED_WALLET' && a.balance.currency.code === 'USD')!.id;
      await this.ok(this.api.post(`/sandbox/internal-accounts/${encodeURIComponent(id)}/fund`, { amount: 1_000_000 }), 'fund');
      return id;
    });
  }
  async usdc(): Promise<string> {
    return (await this.accounts()).find((a) => a.type !== 'EMBEDDED_WALLET' && a.balance.currency.code === 'USDC')!.id;
  }
  /** A second USD account of the customer (the area provisions one per currency; cards tests add one through the repo). */
  secondUsd(): Promise<string> {
    return this.once('secondUsd', async () => {
      const customer = await this.customer();
      return extraUsdAccount(s.sandbox, platformService(s.sandbox.context).authenticate(this.api.clientId, this.api.clientSecret)!.id, customer.id);
    });
  }
  /** An individual whose KYC is not done (`fullName` suffix 003: UNVERIFIED). */
  unverified(): Promise<{ id: string }> {
    return this.once('unverified', () => this.ok(this.api.post('/customers', individual(['USD'], { fullName: 'Jane Smith003' })), 'unverified customer'));
  }
  async eur(): Promise<string> {
    return (await this.accounts()).find((a) => a.type !== 'EMBEDDED_WALLET' && a.balance.currency.code === 'EUR')!.id;
  }
  async wallet(): Promise<string> {
    return (await this.accounts()).find((a) => a.type === 'EMBEDDED_WALLET')!.id;
  }
  /** A USD payee of the customer. */
  external(): Promise<string> {
    return this.once('external', async () => {
      const customer = await this.customer();
      return (await this.ok(this.api.post('/customers/external-accounts', {
        customerId: customer.id,
        currency: 'USD',
        accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456789', routingNumber: '021000021', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } } },
      }), 'external account')).id;
    });
  }
  platformExternal(): Promise<string> {
    return this.once('platformExternal', async () => (await this.ok(this.api.post('/platform/external-accounts', {
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '987654321', routingNumber: '021000021', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Acme Corporation', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } } },
    }), 'platform external account')).id);
  }
  business(): Promise<{ id: string }> {
    return this.once('business', () => this.ok(this.api.post('/customers', {
      customerType: 'BUSINESS',
      businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber: 'REG-777' },
    }), 'business'));
  }
  owner(): Promise<string> {
    return this.once('owner', async () => (await this.ok(this.api.post('/beneficial-owners', {
      customerId: (await this.business()).id, roles: ['UBO'], ownershipPercentage: 30,
      personalInfo: { firstName: 'Ann', lastName: 'Lee', birthDate: '1980-01-01', nationality: 'US', idType: 'SSN', identifier: '123-45-6789', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } },
    }), 'owner')).id);
  }
  /** A quote of 10.00 USD from the funded account to the payee. */
  quote(): Promise<string> {
    return this.once('quote', async () => (await this.ok(this.api.post('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: await this.usd() },
      destination: { destinationType: 'ACCOUNT', accountId: await this.external() },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1000,
    }), 'quote')).id);
  }
  /** A quote funded in real time (sandbox/send pays it). */
  realtimeQuote(): Promise<string> {
    return this.once('realtimeQuote', async () => (await this.ok(this.api.post('/quotes', {
      source: { sourceType: 'REALTIME_FUNDING', customerId: (await this.customer()).id, currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: await this.external() },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1000,
    }), 'realtime quote')).id);
  }
  /** The transaction of an executed quote. */
  transaction(): Promise<string> {
    return this.once('transaction', async () => {
      const executed = await this.ok(this.api.post(`/quotes/${encodeURIComponent(await this.quote())}/execute`, {}), 'execute');
      return executed.transactionId as string;
    });
  }
  lookup(): Promise<string> {
    return this.once('lookup', async () => (await this.ok(this.api.get(`/receiver/external-account/${encodeURIComponent(await this.external())}?customerId=${encodeURIComponent((await this.customer()).id)}`), 'lookup')).lookupId);
  }
  card(): Promise<string> {
    return this.once('card', async () => (await this.ok(this.api.post('/cards', {
      cardholderId: (await this.customer()).id, form: 'VIRTUAL', fundingSources: [await this.usd()], platformCardId: unique('card'),
    }), 'card')).id);
  }
  cardTransaction(): Promise<string> {
    return this.once('cardTransaction', async () => {
      const authorized = await this.ok(this.api.post(`/sandbox/cards/${encodeURIComponent(await this.card())}/simulate/authorization`, {
        amount: 2500, currency: { code: 'USD' }, merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' },
      }), 'card authorization');
      const outcome = await this.ok(this.api.get(`/_sandbox/cards/simulations/${authorized.issuerTransactionToken}`), 'card simulation outcome');
      return outcome.cardTransactionId as string;
    });
  }
  agent(): Promise<{ id: string; token: string }> {
    return this.once('agent', async () => {
      const created = await this.ok(this.api.post('/agents', {
        name: 'Examples agent', customerId: (await this.customer()).id,
        policy: {
          permissions: ['VIEW_TRANSACTIONS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'CREATE_TRANSFERS', 'MANAGE_EXTERNAL_ACCOUNTS'],
          defaultExecutionMode: 'AUTO',
          approvalThresholds: { currency: 'USD', amount: 2000 },
          spendingLimits: { currency: 'USD', perTransactionLimit: 1_000_000, dailyLimit: 1_000_000, dailyTransactionLimit: 100, monthlyLimit: 10_000_000 },
        },
      }), 'agent');
      const redeemed = await this.ok(this.api.post(`/agents/device-codes/${created.deviceCode.code}/redeem`, undefined, { auth: false }), 'redeem');
      return { id: created.agent.id as string, token: redeemed.accessToken as string };
    });
  }

  /** An action of the agent pending approval (an execution above its approval threshold). */
  action(): Promise<string> {
    return this.once('action', async () => {
      const { token } = await this.agent();
      const bearer = { auth: false as const, headers: { Authorization: `Bearer ${token}` } };
      const quote = await this.ok(this.api.post('/agents/me/quotes', {
        source: { sourceType: 'ACCOUNT', accountId: await this.usd() },
        destination: { destinationType: 'ACCOUNT', accountId: await this.external() },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 5000,
      }, bearer), 'agent quote');
      const pending = await this.ok(this.api.post(`/agents/me/quotes/${encodeURIComponent(quote.id)}/execute`, undefined, bearer), 'agent execute');
      return pending.id as string;
    });
  }
  /** A two-factor reset of the customer. */
  reset(): Promise<string> {
    return this.once('reset', async () => (await this.ok(this.api.post(`/sca/factors/reset?customerId=${encodeURIComponent((await this.customer()).id)}`, { factor: 'SMS_OTP' }), 'reset')).resetId);
  }
  /** The wallet's EMAIL_OTP credential. */
  credential(): Promise<string> {
    return this.once('credential', async () => {
      const list = await this.ok(this.api.get(`/auth/credentials?accountId=${encodeURIComponent(await this.wallet())}`), 'credentials');
      return list.data.find((c: { type: string }) => c.type === 'EMAIL_OTP').id;
    });
  }
  /** A wallet session (the EMAIL_OTP login). */
  session(): Promise<string> {
    return this.once('session', async () => (await emailOtpLogin(this.api, await this.wallet())).session.id);
  }

  /**
   * The real id standing for the `index`-th distinct example id of kind `kind` in `operationId`
   * (distinct example ids stay distinct: two funding sources are two accounts).
   */
  async idFor(kind: string, index: number, operationId: string): Promise<string> {
    switch (kind) {
      case 'Customer':
        if (operationId === 'createBeneficialOwner') return (await this.business()).id;
        if (operationId === 'createVerification') return (await this.unverified()).id;
        return (await this.customer()).id;
      case 'InternalAccount':
      case 'Account':
        if (['createAuthCredential', 'createDelegatedKey'].includes(operationId)) return this.wallet();
        if (operationId === 'estimateCryptoWithdrawalFee') return this.usdc();
        return index === 0 ? this.usd() : this.secondUsd();
      case 'ExternalAccount':
        return this.external();
      case 'BeneficialOwner':
        return this.owner();
      case 'Quote':
        return operationId === 'sandboxSend' ? this.realtimeQuote() : this.quote();
      case 'Transaction':
        return this.transaction();
      case 'Lookup':
        return this.lookup();
      case 'Card':
        return this.card();
      case 'CardTransaction':
        return this.cardTransaction();
      case 'Agent':
        return (await this.agent()).id;
      default:
        throw new Error(`no real resource for example id kind ${kind} (${operationId})`);
    }
  }
}

/** Replaces every example id in `value` by a real one (the same example id by the same real id). */
async function substitute(world: World, operationId: string, value: unknown, seen = new Map<string, string[]>()): Promise<unknown> {
  if (typeof value === 'string') {
    const match = ID.exec(value);
    if (!match) return value;
    const ids = seen.get(match[1]!) ?? [];
    seen.set(match[1]!, ids);
    if (!ids.includes(value)) ids.push(value);
    return world.idFor(match[1]!, ids.indexOf(value), operationId);
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) out.push(await substitute(world, operationId, item, seen));
    return out;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = await substitute(world, operationId, item, seen);
    return out;
  }
  return value;
}

/** The real value of path parameter `name` of `op`. */
async function pathParameter(world: World, op: ContractOperation, name: string, body: any): Promise<string> {
  switch (name) {
    case 'customerId':
      return body?.customerType === 'BUSINESS' ? (await world.business()).id : (await world.customer()).id;
    case 'externalAccountId':
      return op.path.startsWith('/platform/') ? world.platformExternal() : world.external();
    case 'beneficialOwnerId':
      return world.owner();
    case 'quoteId':
      return world.quote();
    case 'transactionId':
      return world.transaction();
    case 'accountId':
      return world.usd();
    case 'agentId':
      return (await world.agent()).id;
    case 'id':
      if (op.path.startsWith('/cards/') || op.path.startsWith('/sandbox/cards/')) return world.card();
      if (op.path.startsWith('/internal-accounts/')) return world.wallet();
      if (op.path.startsWith('/auth/credentials/')) return world.credential();
      if (op.path.startsWith('/auth/sessions/')) return world.session();
      return `unresolved-${name}`;
    case 'resetId':
      return world.reset();
    case 'actionId':
      return world.action();
    default:
      return `unresolved-${name}`;
  }
}

interface Outcome {
  status: number;
  body: any;
  sent: unknown;
  path: string;
}

async function send(op: ContractOperation, example: unknown): Promise<Outcome> {
  const api = await s.api.newPlatform();
  const world = new World(api);
  const sent = await substitute(world, op.operationId, example);
  let path = op.path;
  for (const [, name] of op.path.matchAll(/\{([^}]+)\}/g)) path = path.replace(`{${name}}`, encodeURIComponent(await pathParameter(world, op, name!, sent)));
  // Required query parameters (the SCA operations name their customer this way).
  const query = new URLSearchParams();
  for (const name of requiredQuery(op)) query.set(name, await pathParameter(world, op, name, sent));
  if (query.size) path += `?${query}`;
  const options = op.path.startsWith('/agents/me/') ? { auth: false as const, headers: { Authorization: `Bearer ${(await world.agent()).token}` } } : {};
  const { status, body } = await api.request(op.method, path, { ...options, body: sent ?? {} });
  return { status, body, sent, path };
}

describe('contract examples: every built operation accepts the request-body examples of the contract', () => {
  it('covers the built operations with a JSON request body', () => {
    expect(operations.length).toBeGreaterThanOrEqual(60);
  });

  it.each(operations.map(({ op, bodies }) => [op.operationId, op, bodies] as const))('%s', async (_id, op, bodies) => {
    for (const [index, example] of bodies.entries()) {
      const { status, body, sent, path } = await send(op, example);
      const what = `${op.operationId} example #${index}: ${op.method} ${path} ${String(JSON.stringify(sent)).slice(0, 300)} -> ${status} ${String(JSON.stringify(body)).slice(0, 300)}`;
      if (process.env.EXAMPLES_DEBUG) console.log(`EX ${status} ${body?.code ?? ''} ${what}`);
      expect(status < 500, what).toBe(true);
      expect(status === 404 && /UMA|SANDBOX|ADDRESS/.test(String(body?.code)), `a sandbox address is unknown: ${what}`).toBe(false);
      if (status === 400) {
        const allowed = ALLOWED_400.find((a) => a.operationId === op.operationId && a.code === body?.code && (a.when?.(example) ?? true));
        expect(allowed, `a 400 the allow-list does not name: ${what}`).toBeDefined();
      }
    }
  });
});
