import type { Area } from '../area.js';
import { handlers } from './routes.js';

export { appliedRate, currencyInfo, price } from './service.js';
export type { LockedSide, PlatformFeeOverride, Pricing } from './service.js';

/** Exchange rates and the pricing every quote uses. */
export const ratesArea: Area = { name: 'rates', migrations: [], handlers };
