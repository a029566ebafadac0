import type { SandboxContext } from '../store/context.js';
import type { Platform } from '../tenancy/index.js';
import type { OutboxEvent } from '../store/outbox.js';

/** What `webhooks trigger <TYPE> [--resource <id>]` asks a producer for. */
export interface TriggerRequest {
  platform: Platform;
  /** The resource whose data the event carries; absent: the producer creates a realistic one through the services. */
  resourceId?: string | undefined;
}

/**
 * Fires one event of its type for the platform and returns the outbox event it appended. It
 * must go through the area's services (the same code path and `ctx.outbox.append` as the real
 * state change), so `data` is the resource as its GET returns it. Throw an ApiError for a bad
 * request (unknown resource: the area's 404; a resource that cannot have this event: 409).
 */
export type TriggerProducer = (ctx: SandboxContext, request: TriggerRequest) => OutboxEvent | Promise<OutboxEvent>;

const producers = new Map<string, TriggerProducer>();

/**
 * Registers the producer of an event type for `webhooks trigger`. Call it once, at module top
 * level of the area that owns the type (its index.ts), e.g.
 * `registerTriggerProducer('CUSTOMER.KYC_APPROVED', (ctx, { platform, resourceId }) => ...)`.
 * Registering a different producer for a type that has one throws (two owners of one type).
 */
export function registerTriggerProducer(type: string, producer: TriggerProducer): void {
  const existing = producers.get(type);
  if (existing && existing !== producer) throw new Error(`a trigger producer for ${type} is already registered`);
  producers.set(type, producer);
}

/** The producer of an event type, if an area registered one. */
export function triggerProducerOf(type: string): TriggerProducer | undefined {
  return producers.get(type);
}

/** Event types that have a producer. */
export function triggerableTypes(): string[] {
  return [...producers.keys()];
}
