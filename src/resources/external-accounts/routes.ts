import { Hono } from 'hono';
import * as z from 'zod';
import type { SandboxContext } from '../../store/context.js';
import type { AppContext, AppEnv } from '../../server/env.js';
import { inRequest, jsonBody, optionalJson, parseWith, queryOf } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import {
  customerExternalAccountCreate,
  customerListQuery,
  ownershipChallengeRequest,
  ownershipVerifyRequest,
  platformExternalAccountCreate,
  platformListQuery,
} from './schemas.js';
import {
  completeLiveness,
  createExternalAccount,
  deleteExternalAccount,
  getExternalAccountFor,
  listExternalAccounts,
  livenessSession,
  startOwnershipChallenge,
  verifyOwnership,
  type Scope,
} from './service.js';

const idOf = (c: AppContext) => c.req.param('externalAccountId')!;
const originOf = (c: AppContext) => new URL(c.req.url).origin;

const challenge = (scope: Scope) => async (c: AppContext) => {
  const { method } = await jsonBody(c, ownershipChallengeRequest);
  const ctx = c.get('ctx');
  return c.json(startOwnershipChallenge(ctx, c.get('platform').id, idOf(c), scope, method, originOf(c)), 201);
};

const verify = (scope: Scope) => async (c: AppContext) => {
  const body = await jsonBody(c, ownershipVerifyRequest);
  return c.json(verifyOwnership(c.get('ctx'), c.get('platform').id, idOf(c), scope, body));
};

/** External Accounts operations, customer and platform. */
export const handlers: OperationHandlers = {
  createCustomerExternalAccount: async (c) => {
    const input = await jsonBody(c, customerExternalAccountCreate);
    return c.json(inRequest(c, () => createExternalAccount(c.get('ctx'), c.get('platform'), input, 'customer')), 201);
  },
  listCustomerExternalAccounts: (c) => c.json(listExternalAccounts(c.get('ctx'), c.get('platform'), queryOf(c, customerListQuery), 'customer')),
  getCustomerExternalAccountById: (c) => c.json(getExternalAccountFor(c.get('ctx'), c.get('platform').id, idOf(c), 'customer')),
  deleteCustomerExternalAccountById: (c) => {
    deleteExternalAccount(c.get('ctx'), c.get('platform').id, idOf(c), 'customer');
    return c.body(null, 204);
  },
  createExternalAccountOwnershipChallenge: challenge('customer'),
  verifyExternalAccountOwnership: verify('customer'),

  createPlatformExternalAccount: async (c) => {
    const input = await jsonBody(c, platformExternalAccountCreate);
    return c.json(inRequest(c, () => createExternalAccount(c.get('ctx'), c.get('platform'), { ...input, defaultUmaDepositAccount: false }, 'platform')), 201);
  },
  listPlatformExternalAccounts: (c) => c.json(listExternalAccounts(c.get('ctx'), c.get('platform'), queryOf(c, platformListQuery), 'platform')),
  getPlatformExternalAccountById: (c) => c.json(getExternalAccountFor(c.get('ctx'), c.get('platform').id, idOf(c), 'platform')),
  deletePlatformExternalAccountById: (c) => {
    deleteExternalAccount(c.get('ctx'), c.get('platform').id, idOf(c), 'platform');
    return c.body(null, 204);
  },
  createPlatformExternalAccountOwnershipChallenge: challenge('platform'),
  verifyPlatformExternalAccountOwnership: verify('platform'),
};

const escape = (value: string) => value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const outcomeBody = z.object({ outcome: z.enum(['pass', 'fail']) });

/**
 * The hosted LIVENESS flow a challenge's `verificationLink` opens: a page standing in for the
 * biometric check, whose buttons post the asynchronous outcome (the link is the capability).
 */
export function hostedOwnershipRoutes(_ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/hosted/ownership/:id/:token', (c) => {
    const session = livenessSession(c.get('ctx'), c.req.param('id'), c.req.param('token'));
    if (!session) return c.html('<!doctype html><title>Link expired</title><p>This verification link is unknown, used or expired.</p>', 404);
    const address = String(session.account.accountInfo.address ?? '');
    const action = `/hosted/ownership/${encodeURIComponent(c.req.param('id'))}/${encodeURIComponent(c.req.param('token'))}`;
    return c.html(`<!doctype html><html><head><meta charset="utf-8"><title>Wallet ownership check (sandbox)</title></head><body>
<h1>Wallet ownership check</h1><p>Sandbox liveness check for wallet <code>${escape(address)}</code>, open until ${escape(session.expiresAt)}.</p>
<form method="post" action="${action}"><button name="outcome" value="pass">Pass the check</button> <button name="outcome" value="fail">Fail the check</button></form>
</body></html>`);
  });
  app.post('/hosted/ownership/:id/:token', async (c) => {
    const type = c.req.header('Content-Type') ?? '';
    const raw = type.includes('application/json') ? ((await optionalJson(c)) ?? {}) : Object.fromEntries(Object.entries(await c.req.parseBody()));
    const { outcome } = parseWith(outcomeBody, raw, 'form');
    const account = completeLiveness(c.get('ctx'), c.req.param('id'), c.req.param('token'), outcome === 'pass');
    if (!account) return c.html('<!doctype html><title>Link expired</title><p>This verification link is unknown, used or expired.</p>', 404);
    if (type.includes('application/json')) return c.json({ status: account.status });
    return c.html(`<!doctype html><title>Done</title><p>Verification ${outcome === 'pass' ? 'passed' : 'failed'}. You can close this page.</p>`);
  });
  return app;
}
