import type { OperationHandlers } from '../area.js';
import { queryOf } from '../../server/validate.js';
import { customerInternalAccountsQuery, platformInternalAccountsQuery } from './schemas.js';
import { listInternalAccounts, presentInternalAccount, provisionPlatformAccounts } from './service.js';

/** Internal-account operations: customer accounts (paginated) and the platform's own accounts. */
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
  listPlatformInternalAccounts: (c) => {
    const query = queryOf(c, platformInternalAccountsQuery);
    const ctx = c.get('ctx');
    const rows = provisionPlatformAccounts(ctx, c.get('platform')).filter(
      (row) => (query.currency === undefined || row.currency === query.currency) && (query.type === undefined || row.type === query.type),
    );
    return c.json({ data: rows.map((row) => presentInternalAccount(ctx, row)) });
  },
};
