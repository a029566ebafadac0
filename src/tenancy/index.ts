/**
 * Tenancy: the platforms of a sandbox and their credentials (client id and scrypt-hashed
 * secret), with each platform's configuration. Every area, the server's platform Basic scheme
 * and the control plane stand on it; it stands on core, store and crypto only.
 */
export type { Platform, PlatformConfigData, PlatformSettings, NewPlatform } from './service.js';
export { PlatformService, platformService } from './service.js';
export { platformKeySql, platformMigrations } from './repo.js';
export { platformConfigUpdate, type PlatformConfigUpdate } from './schemas.js';
