import { Hono } from 'hono';
import type { SandboxContext } from '../context.js';
import { invitationConfigBody, setInvitationsConfigured } from '../resources/invitations/index.js';
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

  return app;
}
