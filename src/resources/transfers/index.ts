import type { Area } from '../area.js';
import { handlers } from './routes.js';
import { SETTLE_TRANSFER_JOB, settleTransfer } from './service.js';
import { registerPaymentTriggers } from './triggers.js';

export { checkAmount, fundInternalAccount, internalAccountOf, moverOf, ownerForMovement } from './service.js';
export { defaultTransferInAmount, transferIn, transferOut } from './service.js';
export { transferInRequest, transferOutRequest, type TransferInRequest, type TransferOutRequest } from './schemas.js';
export type { AccountOwner } from './service.js';

/** Same-currency transfers in and out, and sandbox funding; their rows live in the ledger and transactions areas. */
export const transfersArea: Area = {
  name: 'transfers',
  migrations: [],
  handlers,
  init: (ctx) =>
    ctx.scheduler.register(SETTLE_TRANSFER_JOB, (job) => {
      const { transactionId, suffix } = job.payload as { transactionId: string; suffix: string };
      settleTransfer(ctx, job.platformId, transactionId, suffix);
    }),
};

// `webhooks trigger INCOMING_PAYMENT.* | OUTGOING_PAYMENT.* [--resource <transactionId>]`.
registerPaymentTriggers();
