import type { OperationHandlers } from '../area.js';
import type { AppContext } from '../../server/env.js';
import type { AgentPrincipal, BearerScheme } from '../../server/principals.js';
import { idempotent } from '../../server/idempotency.js';
import { inRequest, jsonBody, queryOf } from '../../server/validate.js';
import { customerExternalAccountCreate } from '../external-accounts/index.js';
import { quoteRequest } from '../quotes/index.js';
import { transferInRequest, transferOutRequest } from '../transfers/index.js';
import {
  agentActionRejectRequest,
  agentCreateRequest,
  agentPolicyUpdateRequest,
  agentUpdateRequest,
  listAgentsQuery,
  listApprovalsQuery,
  listOwnActionsQuery,
  ownExternalAccountsQuery,
  ownInternalAccountsQuery,
  ownTransactionsQuery,
} from './schemas.js';
import {
  approveAction,
  authenticateAgent,
  createAgent,
  createOwnExternalAccount,
  createOwnQuote,
  deleteAgent,
  deleteOwnExternalAccount,
  deviceCodeStatus,
  executeOwnQuote,
  getAgent,
  getMe,
  getOwnAction,
  getOwnExternalAccount,
  getOwnQuote,
  getOwnTransaction,
  listAgents,
  listApprovals,
  listOwnActions,
  listOwnExternalAccounts,
  listOwnInternalAccounts,
  listOwnTransactions,
  ownTransferIn,
  ownTransferOut,
  redeemDeviceCode,
  regenerateDeviceCode,
  rejectAction,
  updateAgent,
  updatePolicy,
  type AuthenticatedAgent,
} from './service.js';

/** The agents the AgentAuth scheme authenticated, by the principal it gave the server: handlers use the row it read. */
const authenticated = new WeakMap<AgentPrincipal, AuthenticatedAgent>();

/**
 * AgentAuth (`Authorization: Bearer <accessToken>`) for the operations whose contract security
 * is `AgentAuth`, registered with the server by the composition root: binds the request to the
 * agent's platform and customer, or `401`.
 */
export const agentBearerScheme: BearerScheme = {
  authenticate: (ctx, header) => {
    const authenticatedAgent = authenticateAgent(ctx, header);
    const principal: AgentPrincipal = { platform: authenticatedAgent.platform, agentId: authenticatedAgent.agent.id };
    authenticated.set(principal, authenticatedAgent);
    return principal;
  },
};

const me = (c: AppContext): AuthenticatedAgent => {
  const agent = authenticated.get(c.get('agent'));
  if (!agent) throw new Error('an agent operation ran without the agents bearer scheme authenticating it');
  return agent;
};
const agentId = (c: AppContext) => c.req.param('agentId')!;
/** Idempotency keys of agent operations are scoped to the agent, not only to its platform. */
const perAgent = (c: AppContext, operationId: string) => `${operationId}:${me(c).agent.id}`;

/** Agent Management (platform credentials, redeem without) and Agent Operations (bearer). */
export const handlers: OperationHandlers = {
  createAgent: async (c) => c.json(createAgent(c.get('ctx'), c.get('platform'), await jsonBody(c, agentCreateRequest)), 201),
  listAgents: (c) => c.json(listAgents(c.get('ctx'), c.get('platform').id, queryOf(c, listAgentsQuery))),
  listAgentApprovals: (c) => c.json(listApprovals(c.get('ctx'), c.get('platform').id, queryOf(c, listApprovalsQuery))),
  getAgentById: (c) => c.json(getAgent(c.get('ctx'), c.get('platform').id, agentId(c))),
  updateAgent: async (c) => c.json(updateAgent(c.get('ctx'), c.get('platform').id, agentId(c), await jsonBody(c, agentUpdateRequest))),
  deleteAgent: (c) => {
    deleteAgent(c.get('ctx'), c.get('platform').id, agentId(c));
    return c.body(null, 204);
  },
  updateAgentPolicy: async (c) => c.json(updatePolicy(c.get('ctx'), c.get('platform').id, agentId(c), await jsonBody(c, agentPolicyUpdateRequest))),
  regenerateAgentDeviceCode: (c) => c.json(regenerateDeviceCode(c.get('ctx'), c.get('platform').id, agentId(c)), 201),
  approveAgentAction: (c) => c.json(approveAction(c.get('ctx'), c.get('platform'), agentId(c), c.req.param('actionId')!)),
  rejectAgentAction: async (c) => {
    const { reason } = await jsonBody(c, agentActionRejectRequest, { optional: true });
    return c.json(rejectAction(c.get('ctx'), c.get('platform'), agentId(c), c.req.param('actionId')!, reason));
  },
  getAgentDeviceCodeStatus: (c) => c.json(deviceCodeStatus(c.get('ctx'), c.get('platform').id, c.req.param('code')!)),
  redeemAgentDeviceCode: (c) => c.json(redeemDeviceCode(c.get('ctx'), c.req.param('code')!)),

  getAgentMe: (c) => c.json(getMe(c.get('ctx'), me(c))),
  agentListInternalAccounts: (c) => c.json(listOwnInternalAccounts(c.get('ctx'), me(c), queryOf(c, ownInternalAccountsQuery))),
  agentListExternalAccounts: (c) => c.json(listOwnExternalAccounts(c.get('ctx'), me(c), queryOf(c, ownExternalAccountsQuery))),
  agentCreateExternalAccount: async (c) => {
    const input = await jsonBody(c, customerExternalAccountCreate);
    return c.json(inRequest(c, () => createOwnExternalAccount(c.get('ctx'), me(c), input)), 201);
  },
  agentGetExternalAccount: (c) => c.json(getOwnExternalAccount(c.get('ctx'), me(c), c.req.param('externalAccountId')!)),
  agentDeleteExternalAccount: (c) => {
    deleteOwnExternalAccount(c.get('ctx'), me(c), c.req.param('externalAccountId')!);
    return c.body(null, 204);
  },
  agentCreateQuote: async (c) => {
    const request = await jsonBody(c, quoteRequest);
    return idempotent(c, perAgent(c, 'agentCreateQuote'), request, () => createOwnQuote(c.get('ctx'), me(c), request));
  },
  agentGetQuote: (c) => c.json(getOwnQuote(c.get('ctx'), me(c), c.req.param('quoteId')!)),
  agentExecuteQuote: (c) => {
    const quoteId = c.req.param('quoteId')!;
    return idempotent(c, perAgent(c, 'agentExecuteQuote'), { quoteId }, () => ({ status: 200, body: executeOwnQuote(c.get('ctx'), me(c), quoteId) }));
  },
  agentCreateTransferOut: async (c) => {
    const request = await jsonBody(c, transferOutRequest);
    return idempotent(c, perAgent(c, 'agentCreateTransferOut'), request, () => ({ status: 201, body: ownTransferOut(c.get('ctx'), me(c), request) }));
  },
  agentCreateTransferIn: async (c) => {
    const request = await jsonBody(c, transferInRequest);
    return idempotent(c, perAgent(c, 'agentCreateTransferIn'), request, () => ({ status: 201, body: ownTransferIn(c.get('ctx'), me(c), request) }));
  },
  agentListTransactions: (c) => c.json(listOwnTransactions(c.get('ctx'), me(c), queryOf(c, ownTransactionsQuery))),
  agentGetTransaction: (c) => c.json(getOwnTransaction(c.get('ctx'), me(c), c.req.param('transactionId')!)),
  agentListActions: (c) => c.json(listOwnActions(c.get('ctx'), me(c), queryOf(c, listOwnActionsQuery))),
  agentGetAction: (c) => c.json(getOwnAction(c.get('ctx'), me(c), c.req.param('actionId')!)),
};
