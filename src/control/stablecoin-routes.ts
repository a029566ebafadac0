import { Hono } from 'hono';
import type { SandboxContext } from '../store/context.js';
import { invitationConfigBody, setInvitationsConfigured } from '../resources/invitations/index.js';
import {
  operatorStatusBody,
  providerAccountStatusBody,
  receiveOperationFunds,
  requestEnablement,
  setProviderAccountStatus,
  setServiceOperationsStatus,
} from '../resources/stablecoins/index.js';
import type { AppEnv } from '../server/env.js';
import { jsonBody } from '../server/validate.js';

/**
 * Control-plane endpoints of issue 17 (under `/_sandbox`, behind the platform's credentials):
 * the operator's decisions that the service makes outside the API. Each calls the owning
 * area's service, so the same rules and events apply as on the real path.
 */
export function stablecoinControlRoutes(ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  // Whether the platform has UMA invitations configured (default: yes); `false` makes POST /invitations 400 INVITATIONS_NOT_CONFIGURED.
  app.post('/invitations/config', async (c) => {
    const { configured } = await jsonBody(c, invitationConfigBody);
    return c.json(setInvitationsConfigured(ctx, c.get('platform').id, configured));
  });

  // The platform asks for its stablecoin to be enabled for Service operations (the contract has
  // no operation for it; API.md "Stablecoin the service enablement" gives the rule).
  app.post('/stablecoins/:stablecoinId/request-enablement', (c) => c.json(requestEnablement(ctx, c.get('platform'), c.req.param('stablecoinId'))));

  // The operator's decision: ENABLING, ENABLED or DISABLED.
  app.post('/stablecoins/:stablecoinId/service-operations-status', async (c) => {
    const { serviceOperationsStatus } = await jsonBody(c, operatorStatusBody);
    return c.json(setServiceOperationsStatus(ctx, c.get('platform'), c.req.param('stablecoinId'), serviceOperationsStatus));
  });

  // The provider's view of a link's credentials changed (e.g. the API key was revoked at the provider).
  app.post('/stablecoin-provider-accounts/:id/status', async (c) => {
    const { status } = await jsonBody(c, providerAccountStatusBody);
    return c.json(setProviderAccountStatus(ctx, c.get('platform'), c.req.param('id'), status));
  });

  // External funds of a PENDING_FUNDING operation arrived: the wire of a mint, or the tokens of a burn.
  app.post('/stablecoin-operations/:id/fund', (c) => c.json(receiveOperationFunds(ctx, c.get('platform'), c.req.param('id'))));

  return app;
}
