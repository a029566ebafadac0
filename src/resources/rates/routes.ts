import type { OperationHandlers } from '../area.js';
import { queryOf } from '../../server/validate.js';
import { exchangeRatesQuery } from './schemas.js';
import { exchangeRates } from './service.js';

/** Exchange Rates. */
export const handlers: OperationHandlers = {
  getExchangeRates: (c) => c.json(exchangeRates(c.get('ctx'), c.get('platform'), queryOf(c, exchangeRatesQuery))),
};
