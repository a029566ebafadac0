import type { Area } from '../area.js';
import type { BasicScheme } from '../../server/principals.js';
import { platformMigrations, platformService } from '../../tenancy/index.js';
import { handlers } from './routes.js';

/** Platform Configuration: `GET /config` and `PATCH /config` over the platforms of tenancy (src/tenancy/). */
export const platformArea: Area = {
  name: 'platform',
  migrations: platformMigrations,
  handlers,
  init: (ctx) => platformService(ctx).hashStoredSecrets(),
  resetPlatform: (ctx, platform) => platformService(ctx).resetConfig(platform),
};

/**
 * HTTP Basic with a platform's own client id and secret: the first scheme the server asks
 * (registered by the composition root).
 */
export const platformCredentialsScheme: BasicScheme = {
  authenticate: (ctx, { clientId, clientSecret }) => {
    const platforms = platformService(ctx);
    const verified = platforms.verifiedPlatform(clientId, clientSecret);
    if (verified) return { platform: verified };
    return platforms.authenticate(clientId, clientSecret).then((platform) => platform && { platform });
  },
  knows: (ctx, clientId) => platformService(ctx).byClientId(clientId) !== undefined,
};
