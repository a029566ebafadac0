import type { Area } from '../area.js';
import { tokenMigrations } from './repo.js';
import { handlers } from './routes.js';

export { apiTokenExists, apiTokenScheme, authenticateApiToken } from './service.js';
export { requiredPermission } from './permissions.js';

/** API Tokens: `/tokens`, extra HTTP Basic credentials of a platform with enforced permissions. */
export const tokensArea: Area = {
  name: 'tokens',
  migrations: tokenMigrations,
  handlers,
  // No resetPlatform: tokens are credentials, and a sandbox reset keeps credentials (as the platform's own).
};
