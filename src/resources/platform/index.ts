import type { Area } from '../area.js';
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
