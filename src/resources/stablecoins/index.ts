import type { Area } from '../area.js';
import { stablecoinMigrations } from './repo.js';
import { handlers } from './routes.js';
import {
  COMPLETE_OPERATION_JOB,
  EXPIRE_OPERATION_JOB,
  ISSUANCE_STEP_JOB,
  advanceIssuance,
  completeOperation,
  expireOperation,
  removePlatformStablecoins,
} from './service.js';

export {
  receiveOperationFunds,
  requestEnablement,
  setProviderAccountStatus,
  setServiceOperationsStatus,
  stablecoinLedger,
} from './service.js';
export { operatorStatusBody, providerAccountStatusBody } from './schemas.js';

/** Stablecoins: BRALE provider account links, registered stablecoins, the enablement state machine, mints and burns. */
export const stablecoinsArea: Area = {
  name: 'stablecoins',
  migrations: stablecoinMigrations,
  handlers,
  init: (ctx) => {
    const operationId = (payload: unknown) => (payload as { operationId: string }).operationId;
    ctx.scheduler.register(COMPLETE_OPERATION_JOB, (job) => completeOperation(ctx, job.platformId, operationId(job.payload)));
    ctx.scheduler.register(EXPIRE_OPERATION_JOB, (job) => expireOperation(ctx, job.platformId, operationId(job.payload)));
    ctx.scheduler.register(ISSUANCE_STEP_JOB, (job) => advanceIssuance(ctx, job.platformId, (job.payload as { stablecoinId: string }).stablecoinId));
  },
  resetPlatform: (ctx, platform) => removePlatformStablecoins(ctx, platform.id),
};
