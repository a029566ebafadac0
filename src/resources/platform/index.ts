import type { Area } from '../area.js';
import { platformMigrations } from './repo.js';
import { handlers } from './routes.js';
import { platformService } from './service.js';

export type { Platform, PlatformConfigData, PlatformSettings, NewPlatform } from './service.js';
export { PlatformService, platformService } from './service.js';

/** Platform Configuration: `GET /config`, `PATCH /config`, and the platforms behind the credentials. */
export const platformArea: Area = {
  name: 'platform',
  migrations: platformMigrations,
  handlers,
  init: (ctx) => platformService(ctx).hashStoredSecrets(),
  resetPlatform: (ctx, platform) => platformService(ctx).resetConfig(platform),
};
