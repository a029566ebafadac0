import type { Area } from '../area.js';
import { cardMigrations } from './repo.js';
import { handlers, revealFrameRoutes } from './routes.js';
import { ACTIVATE_CARD_JOB, CONFIRM_PULL_JOB, activateLater, confirmPull, removePlatformCards } from './service.js';

export { cardControlRoutes } from './routes.js';
export { registerFundingSourceGuard, type FundingSourceGuard } from './guards.js';
export { cardSettings, findCardForPlatform, getCard, getCardForPlatform, presentCard, updateCardSettings } from './service.js';
export type { CardSettings } from './service.js';
export type { CardRow } from './repo.js';

/** Cards: issuance, state machine, limits, reveal, and the sandbox card-network simulations. */
export const cardsArea: Area = {
  name: 'cards',
  migrations: cardMigrations,
  handlers,
  extraRoutes: revealFrameRoutes,
  init: (ctx) => {
    ctx.scheduler.register(ACTIVATE_CARD_JOB, (job) => {
      const { cardId, decidingId } = job.payload as { cardId: string; decidingId: string };
      activateLater(ctx, job.platformId, cardId, decidingId);
    });
    ctx.scheduler.register(CONFIRM_PULL_JOB, (job) => {
      const { cardTransactionId } = job.payload as { cardTransactionId: string };
      confirmPull(ctx, job.platformId, cardTransactionId);
    });
  },
  resetPlatform: (ctx, platform) => removePlatformCards(ctx, platform.id),
};
