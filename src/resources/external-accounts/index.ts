import { registerTriggerProducer } from '../../events/index.js';
import type { Area } from '../area.js';
import { externalAccountMigrations } from './repo.js';
import { handlers, hostedOwnershipRoutes } from './routes.js';
import { removePlatformExternalAccounts, triggerStatusUpdated } from './service.js';

export { createExternalAccount, defaultUmaDepositAccountOf, getExternalAccount, getExternalAccountFor, primaryIdentifierSuffix, primaryIdentifierOf, suffixOf } from './service.js';
export { deleteExternalAccount, listExternalAccounts } from './service.js';
export { customerExternalAccountCreate } from './schemas.js';
export { registerExternalAccountDeletionGuard, type ExternalAccountDeletionGuard } from './guards.js';
export { bolt11Problem, bolt12Problem, evmAddressProblem, lightningAddressProblem, solanaAddressProblem, sparkAddressProblem } from './validators.js';
export type { ExternalAccount, Scope as ExternalAccountScope } from './service.js';

// `webhooks trigger EXTERNAL_ACCOUNT.STATUS_UPDATED [--resource <externalAccountId>]`.
registerTriggerProducer('EXTERNAL_ACCOUNT.STATUS_UPDATED', (ctx, { platform, resourceId }) => triggerStatusUpdated(ctx, platform, resourceId));

/** External Accounts: bank, mobile-money, SWIFT, wallet and lightning destinations of customers and the platform. */
export const externalAccountsArea: Area = {
  name: 'external-accounts',
  migrations: externalAccountMigrations,
  handlers,
  extraRoutes: hostedOwnershipRoutes,
  resetPlatform: (ctx, platform) => removePlatformExternalAccounts(ctx, platform.id),
};
