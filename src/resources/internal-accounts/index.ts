import type { Area } from '../area.js';
import { onBalanceChange } from '../ledger/index.js';
import { internalAccountMigrations, refillInternalAccounts } from './repo.js';
import { handlers } from './routes.js';
import { announceBalanceChanges, internalAccountRepo } from './service.js';

// INTERNAL_ACCOUNT.BALANCE_UPDATED on every balance change, from the ledger's postings.
onBalanceChange(announceBalanceChanges);

export {
  accountTypeOf,
  accountsOfCustomer,
  balancesOf,
  closeCustomerAccounts,
  fundingInstructions,
  internalAccountRepo,
  listInternalAccounts,
  presentInternalAccount,
  provisionCustomerAccounts,
  provisionPlatformAccounts,
} from './service.js';
export type { AccountBalances, AccountHolder, InternalAccountFilter, InternalAccountRow, InternalAccountType } from './service.js';

/** Internal accounts: provisioning at customer creation and `GET /customers/internal-accounts`. */
export const internalAccountsArea: Area = {
  name: 'internal-accounts',
  migrations: internalAccountMigrations,
  handlers,
  resetPlatform: (ctx, platform) => internalAccountRepo(ctx).removePlatform(platform.id),
  // Rows of a snapshot an earlier sandbox took hold their ids as text: compacted once imported.
  derived: { columns: {}, refill: (ctx, platformId) => refillInternalAccounts(ctx.db, ctx.counts, platformId) },
};
