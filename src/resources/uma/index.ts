import { registerResponseHandler } from '../../events/index.js';
import type { Area } from '../area.js';
import { registerApprovalKind } from '../transactions/index.js';
import { umaMigrations } from './repo.js';
import { handlers } from './routes.js';
import {
  answerIncomingPayment,
  removePlatformLookups,
  SETTLE_UMA_RECEIVE_JOB,
  settleUmaReceive,
  UMA_INCOMING_APPROVAL,
  umaIncomingApproval,
} from './service.js';

// Incoming UMA payments wait for the platform (the contract's incoming-payment webhook):
// its answer to INCOMING_PAYMENT.PENDING, or POST /transactions/{id}/approve|reject, decides.
registerApprovalKind(UMA_INCOMING_APPROVAL, umaIncomingApproval);
registerResponseHandler('INCOMING_PAYMENT.PENDING', {
  onResponse: answerIncomingPayment,
  // 403 (reject) and 422 (more payee data) are answers, not failed deliveries.
  acknowledges: (status) => status === 403 || status === 422,
});

export { checkPayRequest, getReceiverLookup, parseUmaAddress, resolveUmaAddress } from './service.js';
export type { ReceiverLookup, ResolvedUmaAddress, UmaReceivingCurrency } from './service.js';
export { umaTestAddresses, umaTestAddressOf } from '../../rules/uma-addresses.js';
export type { UmaBehaviour, UmaTestAddress } from '../../rules/uma-addresses.js';

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
