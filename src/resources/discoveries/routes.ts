import { queryOf } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import { discoveriesQuery } from './schemas.js';
import { listDiscoveries } from './service.js';

/** Discoveries operations. */
export const handlers: OperationHandlers = {
  getDiscoveries: (c) => c.json(listDiscoveries(queryOf(c, discoveriesQuery))),
};
