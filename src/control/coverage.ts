import { Hono } from 'hono';
import type { CoverageReport, OperationCoverage, WebhookCoverage } from '../core/coverage-report.js';
import type { SandboxContext } from '../store/context.js';
import { coverageRecorder, type CoverageCounts } from '../store/coverage.js';
import { CONTRACT_VERSION, operations } from '../generated/operations.js';
import { sandboxRules } from '../rules/catalog.js';
import { webhookDelivery, webhookTypeNames, type DeliveryActivity } from '../events/index.js';
import type { AppEnv } from '../server/env.js';

/**
 * The integration coverage report: the recorded counts (src/store/coverage.ts) laid over the
 * whole contract, the whole rule list (src/rules/catalog.ts) and every webhook type, so what
 * was never exercised shows as well as what was.
 */
export function coverageReport(ctx: SandboxContext, counts: CoverageCounts, scope: CoverageReport['scope'], clientId?: string): CoverageReport {
  const statusesOf = new Map<string, Record<string, number>>();
  for (const [key, count] of counts.operation) {
    const cut = key.lastIndexOf(' ');
    const operationId = key.slice(0, cut);
    const statuses = statusesOf.get(operationId) ?? {};
    statuses[key.slice(cut + 1)] = count;
    statusesOf.set(operationId, statuses);
  }
  let statusesCovered = 0;
  let statusesTotal = 0;
  const ops: OperationCoverage[] = operations.map((op) => {
    const statuses = statusesOf.get(op.operationId) ?? {};
    statusesTotal += op.statuses.length;
    statusesCovered += op.statuses.filter((status) => statuses[status] !== undefined).length;
    return {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      area: op.tags[0] ?? 'Other',
      calls: Object.values(statuses).reduce((sum, n) => sum + n, 0),
      statuses,
      declared: [...op.statuses],
    };
  });
  const rules = sandboxRules.map((rule) => ({ ...rule, hits: counts.rule.get(rule.id) ?? 0 }));
  const webhooks: WebhookCoverage[] = webhookTypeNames.map((type) => {
    const acknowledged = counts.webhook.get(`${type} DELIVERED`) ?? 0;
    const retried = counts.webhook.get(`${type} RETRYING`) ?? 0;
    const failed = counts.webhook.get(`${type} FAILED`) ?? 0;
    return { type, delivered: acknowledged + retried + failed, acknowledged, retried, failed };
  });
  return {
    scope,
    ...(clientId !== undefined ? { clientId } : {}),
    contractVersion: CONTRACT_VERSION,
    generatedAt: ctx.clock.iso(),
    recording: coverageRecorder(ctx).enabled,
    summary: {
      operations: { covered: ops.filter((op) => op.calls > 0).length, total: ops.length },
      statuses: { covered: statusesCovered, total: statusesTotal },
      rules: { covered: rules.filter((rule) => rule.hits > 0).length, total: rules.length },
      webhooks: { covered: webhooks.filter((w) => w.acknowledged > 0).length, total: webhooks.length },
    },
    operations: ops,
    rules,
    webhooks,
  };
}

/** Everything this process's sandbox recorded: every platform, reset ones included (what `exec --coverage` writes). */
export function runCoverageReport(ctx: SandboxContext): CoverageReport {
  coverageRecorder(ctx).flush();
  return coverageReport(ctx, coverageRecorder(ctx).runTotals(), 'run');
}

const wired = new WeakSet<SandboxContext>();

/**
 * Counts each webhook delivery attempt's outcome by event type (once per sandbox): DELIVERED
 * (the receiver answered 2xx), RETRYING (answered otherwise, tried again later) or FAILED (given up).
 */
export function recordWebhookCoverage(ctx: SandboxContext): void {
  if (wired.has(ctx)) return;
  let worker;
  try {
    worker = webhookDelivery(ctx);
  } catch {
    return; // no delivery worker (a bare context in a unit test)
  }
  wired.add(ctx);
  const recorder = coverageRecorder(ctx);
  worker.events.on('activity', (activity: DeliveryActivity) => {
    if (activity.kind === 'attempt') recorder.record(activity.platformId, 'webhook', `${activity.type} ${activity.result.state}`);
  });
}

/** `GET /_sandbox/coverage`: the calling platform's coverage since its last reset. */
export function coverageRoutes(ctx: SandboxContext): Hono<AppEnv> {
  recordWebhookCoverage(ctx);
  const app = new Hono<AppEnv>();
  app.get('/', (c) => {
    const platform = c.get('platform');
    return c.json(coverageReport(ctx, coverageRecorder(ctx).countsOf(platform.id), 'platform', platform.clientId));
  });
  return app;
}
