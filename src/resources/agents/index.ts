import type { Area } from '../area.js';
import { registerQuoteGuard } from '../quotes/index.js';
import { agentMigrations } from './repo.js';
import { handlers } from './routes.js';
import { decideAgentTransaction, removePlatformAgents } from './service.js';

// The agent policy guard registers with quotes: the platform's approve/reject of a payment an
// agent's action holds pending decides that action.
registerQuoteGuard({ decidePendingPayment: decideAgentTransaction });

export { agentBearerScheme } from './routes.js';
export { decideAgentTransaction } from './service.js';
export type { AuthenticatedAgent } from './service.js';

/**
 * Agents: management with platform credentials, device-code installation, the AgentAuth bearer
 * operations, policies and the approval of agent actions. Every money movement runs through
 * the quotes and transfers services.
 */
export const agentsArea: Area = {
  name: 'agents',
  migrations: agentMigrations,
  handlers,
  resetPlatform: (ctx, platform) => removePlatformAgents(ctx, platform.id),
};
