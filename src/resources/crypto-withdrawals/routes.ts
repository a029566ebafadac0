import { inRequest, jsonBody } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import { estimateWithdrawalFeeRequest } from './schemas.js';
import { estimateWithdrawalFee } from './service.js';

/** Crypto withdrawal fee estimates. */
export const handlers: OperationHandlers = {
  estimateCryptoWithdrawalFee: async (c) => {
    const request = await jsonBody(c, estimateWithdrawalFeeRequest);
    return c.json(inRequest(c, () => estimateWithdrawalFee(c.get('ctx'), c.get('platform'), request)));
  },
};
