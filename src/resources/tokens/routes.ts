import { jsonBody, queryOf } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import { apiTokenCreateRequest, tokensQuery } from './schemas.js';
import { createToken, deleteToken, getToken, listTokens } from './service.js';

/** API Tokens operations. */
export const handlers: OperationHandlers = {
  createToken: async (c) => {
    const request = await jsonBody(c, apiTokenCreateRequest);
    return c.json(await createToken(c.get('ctx'), c.get('platform'), request, c.get('tokenPermissions')), 201);
  },
  listTokens: (c) => c.json(listTokens(c.get('ctx'), c.get('platform'), queryOf(c, tokensQuery))),
  getTokenById: (c) => c.json(getToken(c.get('ctx'), c.get('platform'), c.req.param('tokenId')!)),
  deleteTokenById: (c) => {
    deleteToken(c.get('ctx'), c.get('platform'), c.req.param('tokenId')!);
    return c.body(null, 204);
  },
};
