import type { Area } from '../area.js';
import { kycExtraRoutes } from './hosted.js';
import { kycMigrations } from './repo.js';
import { handlers } from './routes.js';
import { kycRepo, registerKycJobs } from './service.js';
import { registerKycTriggers } from './triggers.js';

export { createVerification, decideKyc, getVerification, presentVerification } from './service.js';
export type { KycDecision, VerificationError, VerificationStatus } from './service.js';

/** KYC/KYB: beneficial owners, documents, verifications, KYC links and the hosted flow. */
export const kycArea: Area = {
  name: 'kyc',
  migrations: kycMigrations,
  handlers,
  extraRoutes: kycExtraRoutes,
  init: registerKycJobs,
  resetPlatform: (ctx, platform) => kycRepo(ctx).removePlatform(platform.id),
};

// `webhooks trigger CUSTOMER.* | VERIFICATION.* | BULK_UPLOAD.* [--resource <id>]`.
registerKycTriggers();
