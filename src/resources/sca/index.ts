import type { Area } from '../area.js';
import { registerExternalAccountDeletionGuard } from '../external-accounts/index.js';
import { registerQuoteGuard } from '../quotes/index.js';
import { scaMigrations } from './repo.js';
import { handlers, hostedResetRoutes } from './routes.js';
import {
  advanceResetLiveness,
  assertBeneficiaryDeletable,
  expireQuoteChallenge,
  QUOTE_CHALLENGE_EXPIRY_JOB,
  removePlatformSca,
  requireQuoteAuthorization,
  RESET_LIVENESS_JOB,
} from './service.js';

// The SCA guard registers with what it guards: an in-scope customer's send waits for
// authorization, and a trusted beneficiary cannot be deleted before it is untrusted.
registerQuoteGuard({ requireAuthorization: requireQuoteAuthorization });
registerExternalAccountDeletionGuard(assertBeneficiaryDeletable);

export { isScaCustomer, isTrustedBeneficiary } from './service.js';

/**
 * Strong Customer Authentication: factors (SMS, TOTP, passkey), SCA login sessions and the
 * lockout, security events, 2FA resets, beneficiary trust and quote authorization.
 */
export const scaArea: Area = {
  name: 'sca',
  migrations: scaMigrations,
  handlers,
  extraRoutes: hostedResetRoutes,
  init: (ctx) => {
    ctx.scheduler.register(RESET_LIVENESS_JOB, (job) => {
      const { resetId, status } = job.payload as { resetId: string; status: 'PENDING_REVIEW' | 'LIVENESS_PASSED' };
      advanceResetLiveness(ctx, resetId, status);
    });
    ctx.scheduler.register(QUOTE_CHALLENGE_EXPIRY_JOB, (job) => expireQuoteChallenge(ctx, job.platformId, (job.payload as { challengeId: string }).challengeId));
  },
  resetPlatform: (ctx, platform) => removePlatformSca(ctx, platform.id),
};
