import type { Area } from '../area.js';
import { umaMigrations } from './repo.js';
import { handlers } from './routes.js';
import { removePlatformLookups, SETTLE_UMA_RECEIVE_JOB, settleUmaReceive } from './service.js';

export { getReceiverLookup, parseUmaAddress, resolveUmaAddress } from './service.js';
export type { ReceiverLookup, ResolvedUmaAddress, UmaReceivingCurrency } from './service.js';
export { umaTestAddresses, umaTestAddressOf } from '../../sandbox/uma-addresses.js';
export type { UmaBehaviour, UmaTestAddress } from '../../sandbox/uma-addresses.js';

/** UMA: receiver lookups (UMA address, external account), the UMA provider directory, sandbox incoming UMA payments. */
export const umaArea: Area = {
  name: 'uma',
  migrations: umaMigrations,
  handlers,
  init: (ctx) =>
    ctx.scheduler.register(SETTLE_UMA_RECEIVE_JOB, (job) => {
      const { transactionId, internalAccountId } = job.payload as { transactionId: string; internalAccountId: string | null };
      settleUmaReceive(ctx, job.platformId, transactionId, internalAccountId);
    }),
  resetPlatform: (ctx, platform) => removePlatformLookups(ctx, platform.id),
};
