import type { SandboxContext } from '../store/context.js';
import type { Migration } from '../store/db.js';
import type { OperationHandler, ServedArea } from '../server/env.js';
import type { Platform } from '../tenancy/index.js';

/** Handlers keyed by the contract's operationId. */
export type OperationHandlers = Record<string, OperationHandler>;

/**
 * One area of the API, as the composition root (src/index.ts) lists it. Handlers are keyed by
 * operationId, so the server knows exactly which contract operations are built and answers the
 * rest with 501. An area that another area may guard (SCA, wallet signatures, agent policies)
 * exposes an extension point of its own for that guard, in its own folder (`guards.ts`).
 */
export interface Area extends ServedArea {
  migrations: readonly Migration[];
  handlers?: OperationHandlers;
  /** Runs once at startup, before requests: register job kinds, subscribe to events. */
  init?: (ctx: SandboxContext) => void;
  /** Deletes every row of a platform (`POST /_sandbox/reset`). */
  resetPlatform?: (ctx: SandboxContext, platform: Platform) => void;
  /**
   * Columns the area computes from its own rows and keeps for speed (a customer's stored wire
   * JSON): snapshots leave them out, and `refill` computes them again for a platform whose rows a
   * snapshot import has just restored (inside the import's transaction).
   */
  derived?: { columns: Readonly<Record<string, readonly string[]>>; refill: (ctx: SandboxContext, platformId: string) => void };
}
