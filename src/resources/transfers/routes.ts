import type { OperationHandlers } from '../area.js';
import { idempotent } from '../../server/idempotency.js';
import { jsonBody } from '../../server/validate.js';
import { sandboxFundRequest, transferInRequest, transferOutRequest } from './schemas.js';
import { fundInternalAccount, transferIn, transferOut } from './service.js';

/** Same-currency transfers (deprecated but accepted) and sandbox funding. */
export const handlers: OperationHandlers = {
  createTransferOut: async (c) => {
    const request = await jsonBody(c, transferOutRequest);
    return idempotent(c, 'createTransferOut', request, () => ({ status: 201, body: transferOut(c.get('ctx'), c.get('platform'), request) }));
  },
  createTransferIn: async (c) => {
    const request = await jsonBody(c, transferInRequest);
    return idempotent(c, 'createTransferIn', request, () => ({ status: 201, body: transferIn(c.get('ctx'), c.get('platform'), request) }));
  },
  sandboxFundInternalAccount: async (c) => {
    const { amount } = await jsonBody(c, sandboxFundRequest);
    return c.json(fundInternalAccount(c.get('ctx'), c.get('platform'), c.req.param('accountId')!, amount));
  },
};
