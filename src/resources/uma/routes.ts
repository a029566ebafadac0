import { jsonBody, queryOf } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import { receiverLookupQuery, sandboxUmaReceiveRequest, umaProvidersQuery } from './schemas.js';
import { listUmaProviders, lookupExternalAccount, lookupUma, sandboxReceive } from './service.js';

/** Receiver lookups, the UMA provider directory and sandbox incoming UMA payments. */
export const handlers: OperationHandlers = {
  lookupUma: (c) =>
    c.json(lookupUma(c.get('ctx'), c.get('platform'), c.req.param('receiverUmaAddress')!, queryOf(c, receiverLookupQuery))),
  lookupExternalAccount: (c) =>
    c.json(lookupExternalAccount(c.get('ctx'), c.get('platform'), c.req.param('accountId')!, queryOf(c, receiverLookupQuery))),
  getAvailableUmaProviders: (c) => c.json(listUmaProviders(queryOf(c, umaProvidersQuery))),
  sandboxReceive: async (c) => {
    const request = await jsonBody(c, sandboxUmaReceiveRequest);
    return c.json(sandboxReceive(c.get('ctx'), c.get('platform'), request));
  },
};
