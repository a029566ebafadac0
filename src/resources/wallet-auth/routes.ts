import type { OperationHandlers } from '../area.js';
import type { AppContext } from '../../server/env.js';
import { jsonBody, queryOf } from '../../server/validate.js';
import {
  accountQuery,
  challengeRequest,
  credentialCreateRequest,
  credentialVerifyRequest,
  delegatedKeyCreateRequest,
  delegatedKeyQuery,
  exportRequest,
  internalAccountUpdateRequest,
  refreshRequest,
} from './schemas.js';
import {
  challengeCredential,
  createCredential,
  createDelegatedKey,
  exportInternalAccount,
  getDelegatedKey,
  listCredentials,
  listDelegatedKeys,
  listSessions,
  refreshSession,
  revokeCredential,
  revokeDelegatedKey,
  revokeSession,
  updateInternalAccount,
  verifyCredential,
  type Outcome,
} from './service.js';
import { signedHeadersOf } from '../../server/signed-headers.js';

const send = (c: AppContext, outcome: Outcome) => (outcome.status === 204 ? c.body(null, 204) : c.json(outcome.body as object, outcome.status as 200));

/** Embedded Wallet Auth, plus the wallet's internal-account update and export. */
export const handlers: OperationHandlers = {
  listAuthCredentials: (c) => c.json(listCredentials(c.get('ctx'), c.get('platform'), queryOf(c, accountQuery).accountId)),
  createAuthCredential: async (c) => send(c, await createCredential(c.get('ctx'), c.get('platform'), await jsonBody(c, credentialCreateRequest), signedHeadersOf(c))),
  revokeAuthCredential: (c) => send(c, revokeCredential(c.get('ctx'), c.get('platform'), c.req.param('id')!, signedHeadersOf(c))),
  challengeAuthCredential: async (c) => c.json(challengeCredential(c.get('ctx'), c.get('platform'), c.req.param('id')!, await jsonBody(c, challengeRequest, { optional: true }))),
  verifyAuthCredential: async (c) => send(c, await verifyCredential(c.get('ctx'), c.get('platform'), c.req.param('id')!, await jsonBody(c, credentialVerifyRequest), signedHeadersOf(c))),
  listAuthSessions: (c) => c.json(listSessions(c.get('ctx'), c.get('platform'), queryOf(c, accountQuery).accountId)),
  revokeAuthSession: (c) => send(c, revokeSession(c.get('ctx'), c.get('platform'), c.req.param('id')!, signedHeadersOf(c))),
  refreshAuthSession: async (c) => send(c, await refreshSession(c.get('ctx'), c.get('platform'), c.req.param('id')!, await jsonBody(c, refreshRequest), signedHeadersOf(c))),
  createDelegatedKey: async (c) => send(c, createDelegatedKey(c.get('ctx'), c.get('platform'), await jsonBody(c, delegatedKeyCreateRequest), signedHeadersOf(c))),
  listDelegatedKeys: (c) => c.json(listDelegatedKeys(c.get('ctx'), c.get('platform'), queryOf(c, delegatedKeyQuery))),
  getDelegatedKeyById: (c) => c.json(getDelegatedKey(c.get('ctx'), c.get('platform'), c.req.param('id')!)),
  revokeDelegatedKey: (c) => {
    revokeDelegatedKey(c.get('ctx'), c.get('platform'), c.req.param('id')!);
    return c.body(null, 204);
  },
  updateInternalAccount: async (c) => send(c, updateInternalAccount(c.get('ctx'), c.get('platform'), c.req.param('id')!, await jsonBody(c, internalAccountUpdateRequest), signedHeadersOf(c))),
  exportInternalAccount: async (c) => send(c, await exportInternalAccount(c.get('ctx'), c.get('platform'), c.req.param('id')!, await jsonBody(c, exportRequest), signedHeadersOf(c))),
};
