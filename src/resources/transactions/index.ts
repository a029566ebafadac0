import type { Area } from '../area.js';
import { transactionMigrations } from './repo.js';
import { handlers } from './routes.js';
import { removePlatformTransactions } from './service.js';

export { eventTypeOf, getTransaction, listTransactions, recordTransaction, updateTransaction } from './service.js';
export type { NewTransaction, TransactionBody, TransactionType } from './service.js';

/** Transactions: `GET /transactions`, `GET /transactions/{id}`, and the record every money movement writes. */
export const transactionsArea: Area = {
  name: 'transactions',
  migrations: transactionMigrations,
  handlers,
  resetPlatform: (ctx, platform) => removePlatformTransactions(ctx, platform.id),
};
