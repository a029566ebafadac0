import type { Area } from '../area.js';
import { agentMigrations } from './repo.js';
import { handlers } from './routes.js';
import { removePlatformAgents } from './service.js';

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
