import { ApiError, ErrorCode } from '../../core/errors.js';
import type { AppContext } from '../../server/env.js';
import { idempotent } from '../../server/idempotency.js';
import { jsonBody, queryOf } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import {
  operationsQuery,
  providerAccountLinkRequest,
  providerAccountsQuery,
  stablecoinBurnRequest,
  stablecoinMintRequest,
  stablecoinRegisterRequest,
  stablecoinsQuery,
} from './schemas.js';
import {
  createBurn,
  createMint,
  getOperation,
  getProviderAccount,
  getStablecoin,
  linkProviderAccount,
  listOperations,
  listProviderAccounts,
  listStablecoins,
  registerStablecoin,
} from './service.js';

/** The contract marks `Idempotency-Key` required on these writes. */
function requireIdempotencyKey(c: AppContext): void {
  if (c.req.header('Idempotency-Key') === undefined) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, 'The Idempotency-Key header is required on this operation.', {
      errors: [{ field: 'Idempotency-Key', constraint: { minLength: 1, maxLength: 255 }, message: 'Send a UUID per logical request.' }],
    });
  }
}

/** Stablecoins operations: provider account links, registration, mints, burns and their operations. */
export const handlers: OperationHandlers = {
  linkStablecoinProviderAccount: async (c) => {
    requireIdempotencyKey(c);
    const request = await jsonBody(c, providerAccountLinkRequest);
    return idempotent(c, 'linkStablecoinProviderAccount', request, () => ({ status: 201, body: linkProviderAccount(c.get('ctx'), c.get('platform'), request) }));
  },
  listStablecoinProviderAccounts: (c) => c.json(listProviderAccounts(c.get('ctx'), c.get('platform'), queryOf(c, providerAccountsQuery))),
  getStablecoinProviderAccount: (c) => c.json(getProviderAccount(c.get('ctx'), c.get('platform'), c.req.param('stablecoinProviderAccountId')!)),
  registerStablecoin: async (c) => {
    requireIdempotencyKey(c);
    const request = await jsonBody(c, stablecoinRegisterRequest);
    return idempotent(c, 'registerStablecoin', request, () => ({ status: 201, body: registerStablecoin(c.get('ctx'), c.get('platform'), request) }));
  },
  listStablecoins: (c) => c.json(listStablecoins(c.get('ctx'), c.get('platform'), queryOf(c, stablecoinsQuery))),
  getStablecoin: (c) => c.json(getStablecoin(c.get('ctx'), c.get('platform'), c.req.param('stablecoinId')!)),
  createStablecoinMint: async (c) => {
    requireIdempotencyKey(c);
    const request = await jsonBody(c, stablecoinMintRequest);
    const stablecoinId = c.req.param('stablecoinId')!;
    return idempotent(c, 'createStablecoinMint', { stablecoinId, ...request }, () => ({
      status: 201,
      body: createMint(c.get('ctx'), c.get('platform'), stablecoinId, request),
    }));
  },
  createStablecoinBurn: async (c) => {
    requireIdempotencyKey(c);
    const request = await jsonBody(c, stablecoinBurnRequest);
    const stablecoinId = c.req.param('stablecoinId')!;
    return idempotent(c, 'createStablecoinBurn', { stablecoinId, ...request }, () => ({
      status: 201,
      body: createBurn(c.get('ctx'), c.get('platform'), stablecoinId, request),
    }));
  },
  listStablecoinOperations: (c) =>
    c.json(listOperations(c.get('ctx'), c.get('platform'), c.req.param('stablecoinId')!, queryOf(c, operationsQuery))),
  getStablecoinOperation: (c) => c.json(getOperation(c.get('ctx'), c.get('platform'), c.req.param('stablecoinOperationId')!)),
};
