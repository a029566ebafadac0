import type { SandboxContext } from '../store/context.js';
import type { Area } from '../resources/area.js';
import type { Platform } from '../tenancy/index.js';

/** Wipes one platform's data in one transaction: every area's rows, its jobs, events and idempotency keys. */
export function resetPlatformData(ctx: SandboxContext, areas: readonly Area[], platform: Platform): void {
  ctx.tx(() => {
    for (const area of [...areas].reverse()) area.resetPlatform?.(ctx, platform);
    ctx.jobs.removePlatform(platform.id);
    ctx.outbox.removePlatform(platform.id);
    ctx.idempotency.removePlatform(platform.id);
  });
}
