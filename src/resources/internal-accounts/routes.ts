import type { OperationHandlers } from '../area.js';
import { queryOf } from '../../server/validate.js';
import { customerInternalAccountsQuery } from './schemas.js';
import { listInternalAccounts } from './service.js';

/** Internal-account operations of this area (`GET /platform/internal-accounts` belongs to the ledger). */
export const handlers: OperationHandlers = {
  listCustomerInternalAccounts: (c) => {
    const query = queryOf(c, customerInternalAccountsQuery);
    const page = listInternalAccounts(
      c.get('ctx'),
      { platformId: c.get('platform').id, customerOwned: true, customerId: query.customerId, currency: query.currency, type: query.type },
      query,
    );
    return c.json(page);
  },
};
