import type { SandboxContext } from '../store/context.js';

/** A receiver's answer to one delivery attempt, as a response handler sees it. */
export interface WebhookResponse {
  platformId: string;
  eventId: string;
  type: string;
  resourceId: string | null;
  status: number;
  body: string | null;
}

/**
 * What an event type does with the platform's answer. Some webhooks are more than
 * notifications: the contract's `incoming-payment` webhook is an approval mechanism whose
 * answer (200, 202, 403, 422) decides the payment.
 */
export interface ResponseHandler {
  /** Runs after each attempt that got an HTTP answer (outside the attempt's transaction). */
  onResponse(ctx: SandboxContext, response: WebhookResponse): void;
  /** Statuses beyond 2xx and 409 that are an answer, not a failure (no retry), e.g. 403 and 422. */
  acknowledges?(status: number): boolean;
}

const handlers = new Map<string, ResponseHandler>();

/**
 * Registers what an event type does with the platform's answer. Call it once, at module top
 * level of the area that owns the type. Registering a different handler for a type that has
 * one throws (two owners of one type).
 */
export function registerResponseHandler(type: string, handler: ResponseHandler): void {
  const existing = handlers.get(type);
  if (existing && existing !== handler) throw new Error(`a response handler for ${type} is already registered`);
  handlers.set(type, handler);
}

/** The response handler of an event type, if an area registered one. */
export function responseHandlerOf(type: string): ResponseHandler | undefined {
  return handlers.get(type);
}
