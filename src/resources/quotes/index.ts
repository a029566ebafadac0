import type { Area } from '../area.js';
import { quoteMigrations } from './repo.js';
import { handlers } from './routes.js';
import { PAYOUT_STEP_JOB, removePlatformQuotes, runPayoutStep } from './service.js';

export { advanceQuoteAuthorization, cancelTransaction, expireQuoteAuthorization, createQuote, executeQuote, getQuote, sandboxSend } from './service.js';
export { quoteRequest, type QuoteRequest } from './schemas.js';
export { listQuotes } from './list.js';
export { registerQuoteGuard, type QuoteAuthorizationRequest, type QuoteGuard, type WalletPayment } from './guards.js';

/** Quotes: pricing, rate locks, execution and every payout outcome; the transaction actions. */
export const quotesArea: Area = {
  name: 'quotes',
  migrations: quoteMigrations,
  handlers,
  init: (ctx) =>
    ctx.scheduler.register(PAYOUT_STEP_JOB, (job) => {
      const { quoteId, index } = job.payload as { quoteId: string; index: number };
      runPayoutStep(ctx, job.platformId, quoteId, index);
    }),
  resetPlatform: (ctx, platform) => removePlatformQuotes(ctx, platform.id),
};
