import type { OperationHandlers } from '../area.js';
import { jsonText } from '../../server/json-text.js';
import { listQueryOf } from '../../server/validate.js';
import { listTransactionsQuery } from './schemas.js';
import { getTransaction, listTransactionsJson } from './service.js';

/** Transactions: list and get. */
export const handlers: OperationHandlers = {
  listTransactions: (c) => {
    const query = listQueryOf(c, listTransactionsQuery);
    const normalized = {
      ...query,
      startDate: query.startDate === undefined ? undefined : new Date(query.startDate).toISOString(),
      endDate: query.endDate === undefined ? undefined : new Date(query.endDate).toISOString(),
    };
    return jsonText(c, listTransactionsJson(c.get('ctx'), c.get('platform').id, normalized));
  },
  getTransactionById: (c) => c.json(getTransaction(c.get('ctx'), c.get('platform').id, c.req.param('transactionId')!)),
};
