import { Hono } from 'hono';
import * as z from 'zod';
import type { SandboxContext } from '../../store/context.js';
import { notFound } from '../../core/errors.js';
import { basicAuth } from '../../server/auth.js';
import type { AppContext, AppEnv } from '../../server/env.js';
import { jsonBody, listQueryOf, optionalJson, parseWith } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import {
  authorizationRequest,
  confirmRequest,
  customerQuery,
  enrollRequest,
  loginCompleteRequest,
  loginStartRequest,
  recordEventRequest,
  resetCompleteRequest,
  resetStartRequest,
  trustConfirmRequest,
} from './schemas.js';
import {
  advanceResetLiveness,
  authorizeQuote,
  completeLogin,
  completeReset,
  confirmEnrollment,
  confirmTrustChange,
  deleteFactor,
  getReset,
  listFactors,
  recordEvent,
  resendQuoteCode,
  resetForLink,
  scaState,
  startEnrollment,
  startLogin,
  startReset,
  startTrustChange,
} from './service.js';

/**
 * The customer an `/sca/*` call runs for: the required `customerId` query parameter. Without it,
 * an operation whose contract declares no 400 (GET and DELETE) answers its 404: no customer.
 */
const customerOf = (c: AppContext) => {
  if (c.req.query('customerId') === undefined && c.get('operation')?.statuses.includes(400) === false) {
    throw notFound('USER_NOT_FOUND', 'No customer: send the customer this call is for as the customerId query parameter.');
  }
  // The validated query remembered by its text (a pure function of it): each ceremony's calls
  // name the same customer, and validating it afresh was 4 % of an SCA login's CPU (issue 26).
  return listQueryOf(c, customerQuery).customerId;
};
const accountOf = (c: AppContext) => c.req.param('externalAccountId')!;
const originOf = (c: AppContext) => new URL(c.req.url).origin;

/** Strong Customer Authentication operations. */
export const handlers: OperationHandlers = {
  listScaFactors: (c) => c.json(listFactors(c.get('ctx'), c.get('platform'), customerOf(c))),
  startScaFactorEnrollment: async (c) => {
    const customerId = customerOf(c);
    const { type } = await jsonBody(c, enrollRequest);
    return c.json(startEnrollment(c.get('ctx'), c.get('platform'), customerId, type));
  },
  confirmScaFactorEnrollment: async (c) => {
    const customerId = customerOf(c);
    const request = await jsonBody(c, confirmRequest);
    return c.json(await confirmEnrollment(c.get('ctx'), c.get('platform'), customerId, request));
  },
  deleteScaFactor: (c) => {
    deleteFactor(c.get('ctx'), c.get('platform'), customerOf(c), c.req.param('credentialId')!);
    return c.body(null, 204);
  },
  startScaLogin: async (c) => {
    const customerId = customerOf(c);
    const { factor } = await jsonBody(c, loginStartRequest);
    return c.json(startLogin(c.get('ctx'), c.get('platform'), customerId, factor));
  },
  completeScaLogin: async (c) => {
    const customerId = customerOf(c);
    const request = await jsonBody(c, loginCompleteRequest);
    return c.json(await completeLogin(c.get('ctx'), c.get('platform'), customerId, request));
  },
  recordSecurityEvent: async (c) => {
    const customerId = customerOf(c);
    const { eventType } = await jsonBody(c, recordEventRequest);
    return c.json(recordEvent(c.get('ctx'), c.get('platform'), customerId, eventType));
  },
  startTwoFactorReset: async (c) => {
    const customerId = customerOf(c);
    const { factor } = await jsonBody(c, resetStartRequest);
    return c.json(startReset(c.get('ctx'), c.get('platform'), customerId, factor, originOf(c)), 201);
  },
  getTwoFactorResetStatus: (c) => c.json(getReset(c.get('ctx'), c.get('platform'), customerOf(c), c.req.param('resetId')!)),
  completeTwoFactorReset: async (c) => {
    const customerId = customerOf(c);
    const { mobile } = await jsonBody(c, resetCompleteRequest, { optional: true });
    completeReset(c.get('ctx'), c.get('platform'), customerId, c.req.param('resetId')!, mobile);
    return c.body(null, 204);
  },
  startBeneficiaryTrust: (c) => c.json(startTrustChange(c.get('ctx'), c.get('platform'), accountOf(c), 'TRUST')),
  confirmBeneficiaryTrust: async (c) => {
    const request = await jsonBody(c, trustConfirmRequest);
    return c.json(await confirmTrustChange(c.get('ctx'), c.get('platform'), accountOf(c), 'TRUST', request));
  },
  startBeneficiaryUntrust: (c) => c.json(startTrustChange(c.get('ctx'), c.get('platform'), accountOf(c), 'UNTRUST')),
  confirmBeneficiaryUntrust: async (c) => {
    const request = await jsonBody(c, trustConfirmRequest);
    return c.json(await confirmTrustChange(c.get('ctx'), c.get('platform'), accountOf(c), 'UNTRUST', request));
  },
  authorizeQuote: async (c) => {
    const request = await jsonBody(c, authorizationRequest);
    return c.json(await authorizeQuote(c.get('ctx'), c.get('platform'), c.req.param('quoteId')!, request));
  },
  resendQuoteScaCode: (c) => {
    resendQuoteCode(c.get('ctx'), c.get('platform'), c.req.param('quoteId')!);
    return c.body(null, 204);
  },
};

const outcomeBody = z.object({ outcome: z.enum(['pass', 'fail']) });
const expired = '<!doctype html><title>Link expired</title><p>This liveness link is unknown, used or expired.</p>';

/**
 * The control-plane view of a customer's SCA state, and the hosted liveness check a 2FA reset's `verificationLink` opens (the link is the capability):
 * a sandbox page whose buttons pass or fail the check at once, instead of waiting for the delay.
 */
export function hostedResetRoutes(_ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Control plane: platform credentials, as every /_sandbox endpoint but health.
  app.get('/_sandbox/sca/state', basicAuth, (c) => c.json(scaState(c.get('ctx'), c.get('platform'), customerOf(c))));
  app.get('/hosted/sca-reset/:id/:token', (c) => {
    const row = resetForLink(c.get('ctx'), c.req.param('id'), c.req.param('token'));
    if (!row) return c.html(expired, 404);
    const action = `/hosted/sca-reset/${encodeURIComponent(c.req.param('id'))}/${encodeURIComponent(c.req.param('token'))}`;
    return c.html(`<!doctype html><html><head><meta charset="utf-8"><title>Liveness check (sandbox)</title></head><body>
<h1>Liveness check</h1><p>Sandbox liveness check to reset the ${row.factor} factor.</p>
<form method="post" action="${action}"><button name="outcome" value="pass">Pass the check</button> <button name="outcome" value="fail">Fail the check</button></form>
</body></html>`);
  });
  app.post('/hosted/sca-reset/:id/:token', async (c) => {
    const type = c.req.header('Content-Type') ?? '';
    const raw = type.includes('application/json') ? ((await optionalJson(c)) ?? {}) : Object.fromEntries(Object.entries(await c.req.parseBody()));
    const { outcome } = parseWith(outcomeBody, raw, 'form');
    const ctx = c.get('ctx');
    const row = ctx.tx(() => {
      const open = resetForLink(ctx, c.req.param('id'), c.req.param('token'));
      return open && advanceResetLiveness(ctx, open.id, outcome === 'pass' ? 'LIVENESS_PASSED' : 'REJECTED');
    });
    if (!row) return c.html(expired, 404);
    if (type.includes('application/json')) return c.json({ status: row.status });
    return c.html(`<!doctype html><title>Done</title><p>Liveness ${outcome === 'pass' ? 'passed' : 'failed'}. You can close this page.</p>`);
  });
  return app;
}
