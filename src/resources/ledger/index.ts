import type { Area } from '../area.js';
import { ledgerMigrations } from './repo.js';
import { removePlatformLedger } from './service.js';

export {
  accountBalances,
  auditLedger,
  bucketOf,
  entriesOf,
  insufficientFunds,
  ledgerBalance,
  move,
  onBalanceChange,
  post,
  worldAccount,
} from './service.js';
export type { BalanceListener, Bucket, Leg } from './service.js';
export type { EntryRow } from './repo.js';

/** The double-entry ledger every balance follows from. No operations of its own. */
export const ledgerArea: Area = {
  name: 'ledger',
  migrations: ledgerMigrations,
  resetPlatform: (ctx, platform) => removePlatformLedger(ctx, platform.id),
};
