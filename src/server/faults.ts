import type { Context, MiddlewareHandler, Next } from 'hono';
import * as z from 'zod';
import { ApiError } from '../core/errors.js';
import { perContext } from '../core/per-context.js';
import type { SandboxContext } from '../store/context.js';
import { errorCodes, type ContractOperation } from '../generated/operations.js';
import type { AppEnv } from './env.js';

/**
 * Fault injection on demand (`/_sandbox/faults`): a platform arms rules that make chosen
 * operations answer an error, answer late, or drop the connection, so it can test its retry and
 * timeout logic against the sandbox. Rules live in memory, per platform, and vanish on reset and
 * on restart. A faulted request never reaches its handler, so it changes no state; a latency
 * rule only delays the request, which then runs as usual.
 */

/**
 * What an armed rule does to a matching request. `STATUS` answers an error with the contract's
 * envelope: a status (429, 500, 503) with its generic code, or a code the contract gives the
 * operation (`code`), at the status the contract gives it; `retryAfterSeconds` is null for an
 * answer no retry can change (a 4xx but 429, and not QUOTE_REQUEST_FAILED).
 */
export type FaultEffect =
  | { type: 'STATUS'; status: number; code: string; retryAfterSeconds: number | null }
  | { type: 'LATENCY'; latencyMs: number }
  | { type: 'DROP' };

/** One armed rule, as the control plane shows it. */
export interface FaultRule {
  id: string;
  /** The contract operationId it matches, or null when it matches by path. */
  operationId: string | null;
  /** A path pattern under the API base (`*` matches one segment, `**` any rest), or null. */
  path: string | null;
  /** An HTTP method the path pattern is limited to, or null for any. */
  method: string | null;
  effect: FaultEffect;
  /** Matching requests still to fault; null when the rule works by probability until cleared. */
  remaining: number | null;
  /** Chance that a matching request is faulted (rules without `times`); null for counted rules. */
  probability: number | null;
  /** How many requests this rule has faulted so far. */
  faulted: number;
  createdAt: string;
}

/** The request body of `POST /_sandbox/faults`. */
export const faultRuleRequest = z
  .object({
    operationId: z.string().min(1).max(100).optional(),
    path: z
      .string()
      .min(1)
      .max(500)
      .regex(/^\/[^\s?#]*$/, 'a path under the API base, such as /quotes/* or /customers/**')
      .optional(),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
    status: z.union([z.literal(429), z.literal(500), z.literal(503)]).optional(),
    code: z.string().min(1).max(100).regex(/^[A-Z][A-Z0-9_]*$/, 'an error code of the contract, such as CERT_CHAIN_INVALID').optional(),
    latencyMs: z.number().int().min(1).max(60_000).optional(),
    drop: z.literal(true).optional(),
    retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
    times: z.number().int().min(1).max(1_000_000).optional(),
    probability: z.number().gt(0).max(1).optional(),
  })
  .strict()
  .superRefine((rule, issue) => {
    if ((rule.operationId === undefined) === (rule.path === undefined)) {
      issue.addIssue({ code: 'custom', path: ['operationId'], message: 'name exactly one of operationId or path' });
    }
    if (rule.method !== undefined && rule.path === undefined) {
      issue.addIssue({ code: 'custom', path: ['method'], message: 'method narrows a path rule; an operationId already names one method' });
    }
    const effects = [rule.code ?? rule.status, rule.latencyMs, rule.drop].filter((value) => value !== undefined).length;
    if (effects !== 1) issue.addIssue({ code: 'custom', path: ['status'], message: 'give exactly one effect: status (429, 500 or 503), code, latencyMs, or drop: true' });
    if (rule.code !== undefined && rule.status !== undefined) {
      issue.addIssue({ code: 'custom', path: ['status'], message: 'a code brings its own status (the one the contract gives it): give code or status, not both' });
    }
    if (rule.code !== undefined && rule.operationId === undefined) {
      issue.addIssue({ code: 'custom', path: ['code'], message: 'a code needs an operationId: the contract gives codes per operation' });
    }
    if (rule.retryAfterSeconds !== undefined && rule.status === undefined && rule.code === undefined) {
      issue.addIssue({ code: 'custom', path: ['retryAfterSeconds'], message: 'retryAfterSeconds goes with a status or code effect' });
    }
    if (rule.times !== undefined && rule.probability !== undefined) {
      issue.addIssue({ code: 'custom', path: ['probability'], message: 'give times (the next N matching requests) or probability (until cleared), not both' });
    }
  });

/** A validated `POST /_sandbox/faults` body. */
export type FaultRuleRequest = z.infer<typeof faultRuleRequest>;

/** The contract's error code for each status a rule can inject. */
const CODE_OF: Record<429 | 500 | 503, string> = { 429: 'RATE_LIMITED', 500: 'INTERNAL_ERROR', 503: 'SERVICE_UNAVAILABLE' };

/** Codes a retry may get past although their status is a 4xx (API.md: QUOTE_REQUEST_FAILED is retryable). */
const RETRYABLE_CODES: ReadonlySet<string> = new Set(['QUOTE_REQUEST_FAILED']);

/**
 * The status the contract gives `code` on an operation (one of its declared statuses whose
 * error schema lists the code), or `400 INVALID_INPUT` naming the codes it does declare.
 */
function statusOfCode(op: ContractOperation, code: string): number {
  const status = op.statuses.find((candidate) => errorCodes[candidate]?.includes(code));
  if (status !== undefined) return status;
  const declared = op.statuses.filter((candidate) => candidate >= 400 && errorCodes[candidate]).map((candidate) => `${candidate} (${errorCodes[candidate]!.join(', ')})`);
  const elsewhere = Object.entries(errorCodes).find(([, codes]) => codes.includes(code))?.[0];
  throw new ApiError(400, 'INVALID_INPUT', `${op.operationId} has no answer with the code ${code}${elsewhere ? ` (the contract gives it as a ${elsewhere}, a status ${op.operationId} does not declare)` : ' (no error schema of the contract lists it)'}.`, {
    errors: [{ field: 'code', constraint: { enum: op.statuses.flatMap((candidate) => (candidate >= 400 ? [...(errorCodes[candidate] ?? [])] : [])) }, message: `one of the codes of ${op.operationId}'s error statuses: ${declared.join('; ')}` }],
  });
}

interface ArmedRule extends FaultRule {
  platformId: string;
  pattern: RegExp | null;
}

/** Turns `/quotes/*` or `/customers/**` into an anchored expression over a request path. */
function patternOf(path: string): RegExp {
  const source = path
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) => (segment === '**' ? '.*' : segment.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')))
    .join('/');
  return new RegExp(`^${source.replace(/\/\.\*$/, '(?:/.*)?')}/?$`);
}

/** The armed rules of every platform of one sandbox. */
export class FaultRules {
  private readonly rules: ArmedRule[] = [];

  constructor(private readonly ctx: SandboxContext) {}

  /** Arms a rule for a platform; `operationId` must be one of the contract's (and `code` one it answers). */
  add(platformId: string, request: FaultRuleRequest, known: ReadonlyMap<string, ContractOperation>): FaultRule {
    const op = request.operationId === undefined ? undefined : known.get(request.operationId);
    if (request.operationId !== undefined && !op) {
      throw new ApiError(400, 'INVALID_INPUT', `${request.operationId} is not an operationId of the contract.`, {
        errors: [{ field: 'operationId', message: 'use an operationId from openapi.yaml, e.g. createQuote' }],
      });
    }
    let effect: FaultEffect;
    if (request.code !== undefined) {
      const status = statusOfCode(op!, request.code);
      const retryable = status === 429 || status >= 500 || RETRYABLE_CODES.has(request.code);
      if (!retryable && request.retryAfterSeconds !== undefined) {
        throw new ApiError(400, 'INVALID_INPUT', `${request.code} (${status}) is an answer no retry can change, so it carries no Retry-After.`, {
          errors: [{ field: 'retryAfterSeconds', message: 'only for 429, 5xx and retryable codes' }],
        });
      }
      effect = { type: 'STATUS', status, code: request.code, retryAfterSeconds: retryable ? (request.retryAfterSeconds ?? 1) : null };
    } else if (request.status !== undefined) {
      effect = { type: 'STATUS', status: request.status, code: CODE_OF[request.status], retryAfterSeconds: request.retryAfterSeconds ?? 1 };
    } else {
      effect = request.latencyMs !== undefined ? { type: 'LATENCY', latencyMs: request.latencyMs } : { type: 'DROP' };
    }
    const rule: ArmedRule = {
      id: this.ctx.ids.next('Fault'),
      platformId,
      operationId: request.operationId ?? null,
      path: request.path ?? null,
      method: request.method ?? null,
      effect,
      remaining: request.probability === undefined ? (request.times ?? 1) : null,
      probability: request.probability ?? null,
      faulted: 0,
      createdAt: this.ctx.clock.iso(),
      pattern: request.path === undefined ? null : patternOf(request.path),
    };
    this.rules.push(rule);
    return view(rule);
  }

  /** A platform's armed rules, oldest first. */
  list(platformId: string): FaultRule[] {
    return this.rules.filter((rule) => rule.platformId === platformId).map(view);
  }

  /** Removes one rule (by id) or all of a platform's; returns how many were removed. */
  clear(platformId: string, id?: string): number {
    let removed = 0;
    for (let i = this.rules.length - 1; i >= 0; i -= 1) {
      const rule = this.rules[i]!;
      if (rule.platformId === platformId && (id === undefined || rule.id === id)) {
        this.rules.splice(i, 1);
        removed += 1;
      }
    }
    return removed;
  }

  /** Whether any rule is armed (the gate's fast path: most sandboxes never arm one). */
  get armed(): boolean {
    return this.rules.length > 0;
  }

  /**
   * The first armed rule that takes this request, counted as used (a counted rule is removed
   * when its count runs out), or undefined.
   */
  take(platformId: string, operationId: string, method: string, path: string, random: () => number): FaultRule | undefined {
    for (let i = 0; i < this.rules.length; i += 1) {
      const rule = this.rules[i]!;
      if (rule.platformId !== platformId) continue;
      const matches = rule.operationId !== null ? rule.operationId === operationId : rule.pattern!.test(path) && (rule.method === null || rule.method === method);
      if (!matches) continue;
      if (rule.probability !== null && random() >= rule.probability) continue;
      rule.faulted += 1;
      if (rule.remaining !== null) {
        rule.remaining -= 1;
        if (rule.remaining === 0) this.rules.splice(i, 1);
      }
      return view(rule);
    }
    return undefined;
  }
}

function view(rule: ArmedRule): FaultRule {
  const { platformId: _platformId, pattern: _pattern, ...shown } = rule;
  return { ...shown, effect: { ...rule.effect } };
}

/** The fault rules of a sandbox context. */
export const faultRulesOf = perContext((ctx: SandboxContext) => new FaultRules(ctx));

// The random draws of probability rules come from a stream of the sandbox's source of their own
// (with --seed, the same requests fault alike; other values are not shifted by the draws);
// counted rules (`times`) are exact.
const drawsOf = perContext((ctx: SandboxContext) => {
  const random = ctx.random.stream('faults');
  return () => random.float();
});

interface NodeBindings {
  incoming?: { socket?: { destroy(): void } };
}

/**
 * Runs before one contract operation's handler, after authentication: applies the first armed
 * rule of the calling platform that matches, if any.
 */
export function faultGate(op: ContractOperation, basePath: string): MiddlewareHandler<AppEnv> {
  // Synchronous while no rule is armed: no promise of its own on every request (issue 26).
  return (c, next) => {
    const ctx = c.get('ctx');
    const platform = c.get('platform') as { id: string } | undefined;
    // An operation without credentials (device-code redeem) belongs to no platform.
    if (!platform || !faultRulesOf(ctx).armed) return next();
    return applyFault(c, next, op, basePath, ctx, platform.id);
  };
}

/** Applies the first armed rule of the platform that takes this request, if any. */
async function applyFault(c: Context<AppEnv>, next: Next, op: ContractOperation, basePath: string, ctx: SandboxContext, platformId: string): Promise<Response | void> {
  const path = c.req.path.startsWith(basePath) ? c.req.path.slice(basePath.length) || '/' : c.req.path;
  const rule = faultRulesOf(ctx).take(platformId, op.operationId, c.req.method, path, drawsOf(ctx));
  if (!rule) return next();
  c.header('Service-Sandbox-Fault', rule.id);
  const effect = rule.effect;
  if (effect.type === 'LATENCY') {
    await new Promise((resolve) => setTimeout(resolve, effect.latencyMs));
    return next();
  }
  if (effect.type === 'DROP') {
    const socket = (c.env as NodeBindings | undefined)?.incoming?.socket;
    if (socket) {
      socket.destroy();
      return c.body(null, 500);
    }
    // No socket to drop (an in-process app.request()): the closest answer is a 503.
    throw new ApiError(503, CODE_OF[503], `Fault ${rule.id}: the connection would have been dropped here.`, undefined, { retryAfterSeconds: 1 });
  }
  throw new ApiError(
    effect.status,
    effect.code,
    `Injected fault ${rule.id} (POST /_sandbox/faults): ${op.operationId} answers ${effect.status} ${effect.code} this time; nothing was changed.`,
    { faultId: rule.id },
    effect.retryAfterSeconds === null ? undefined : { retryAfterSeconds: effect.retryAfterSeconds },
  );
}
