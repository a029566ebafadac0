import { ApiError, ErrorCode, notFound } from '../../core/errors.js';
import { paginate, type Page } from '../../core/pagination.js';
import type { SandboxContext } from '../../store/context.js';
import {
  WEBHOOK_TYPES,
  triggerProducerOf,
  webhookDelivery,
  type AttemptResult,
  type AttemptRow,
  type DeliveryRow,
  type OutboxEvent,
} from '../../events/index.js';
import type { Platform } from '../../tenancy/index.js';
import type { DeliveriesQuery, ForwardedBody, TriggerBody } from './schemas.js';

/**
 * Event types the sandbox sends from their flows only (the event carries state a trigger could
 * not make up): how to cause each one. `webhooks trigger` names the flow instead of firing them.
 */
const PRODUCED_BY_FLOW: Record<string, string> = {
  'INTERNAL_ACCOUNT.BALANCE_UPDATED': 'an internal account balance changes (fund it: `service-sandbox fund <account> 10 USD`, or pay from it)',
  'INTERNAL_ACCOUNT.STATUS_UPDATED': "an internal account's status or embedded-wallet privacy changes (PATCH /internal-accounts/{id})",
  'INVITATION.CLAIMED': 'an invitation is claimed (POST /invitations/{invitationCode}/claim)',
  'AGENT_ACTION.PENDING_APPROVAL': "an agent's payment needs the platform's approval (an agent quote executed above its policy's approval threshold)",
  'CARD.STATE_CHANGE': "a card's state changes (POST /cards, PATCH /cards/{id})",
  'CARD.FUNDING_SOURCE_CHANGE': "a card's funding sources change (PATCH /cards/{id})",
  'CARD_TRANSACTION.AUTHORIZED': 'a card is authorised (POST /sandbox/cards/{id}/simulate/authorization)',
  'CARD_TRANSACTION.PARTIALLY_SETTLED': 'part of a card authorisation clears (POST /sandbox/cards/{id}/simulate/clearing)',
  'CARD_TRANSACTION.SETTLED': 'a card authorisation clears in full (POST /sandbox/cards/{id}/simulate/clearing)',
  'CARD_TRANSACTION.REFUNDED': 'a card payment is returned (POST /sandbox/cards/{id}/simulate/return)',
  'CARD_TRANSACTION.EXCEPTION': "a card transaction's funding pull fails (the sandbox card rules' failed-pull suffix) or a clearing above the authorisation finds the funding source short",
};

/** Error codes of webhook operations (the contract's Error400 lists both). */
export const WebhookErrorCode = {
  WEBHOOK_ENDPOINT_NOT_SET: 'WEBHOOK_ENDPOINT_NOT_SET',
  WEBHOOK_DELIVERY_ERROR: 'WEBHOOK_DELIVERY_ERROR',
} as const;

/** One logged attempt, as the control plane shows it. */
export type AttemptView = Pick<AttemptResult, 'attempt' | 'attemptedAt' | 'url' | 'outcome' | 'responseStatus' | 'error' | 'latencyMs'> & {
  responseExcerpt: string | null;
  /** The `webhooks listen --forward-to` session that forwarded it to `url`; null for a delivery to the platform's endpoint. */
  listenSession: string | null;
};

/** An event with its delivery state and attempts, as the control plane shows it. */
export interface DeliveryView {
  id: string;
  type: string;
  timestamp: string;
  resourceId: string | null;
  data: unknown;
  status: DeliveryRow['delivery_state'];
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  attempts: AttemptView[];
}

const presentAttempt = (row: AttemptRow): AttemptView => ({
  attempt: row.attempt,
  attemptedAt: row.attempted_at,
  url: row.url,
  outcome: row.outcome,
  responseStatus: row.response_status,
  error: row.error,
  latencyMs: row.latency_ms,
  responseExcerpt: row.response_excerpt,
  listenSession: row.listen_session ?? null,
});

const endpointNotSet = () =>
  new ApiError(
    400,
    WebhookErrorCode.WEBHOOK_ENDPOINT_NOT_SET,
    'No webhook endpoint is configured; set one with PATCH /config {"webhookEndpoint": "..."} or start the sandbox with --webhook-url.',
  );

/** Webhook operations of a platform: test delivery, inspection, replay and trigger. */
export class WebhooksService {
  constructor(private readonly ctx: SandboxContext) {}

  private get worker() {
    return webhookDelivery(this.ctx);
  }

  /** `POST /sandbox/webhooks/test`: delivers a TEST event now (one attempt) and reports the answer. */
  async sendTest(platform: Platform): Promise<{ url: string; response_status: number; response_body?: string }> {
    if (!platform.config.webhookEndpoint) throw endpointNotSet();
    const event = this.ctx.tx(() => this.ctx.outbox.append(platform.id, 'TEST', null, {}));
    const result = await this.worker.deliverNow(event.id, { retry: false });
    if (!result) throw endpointNotSet();
    if (result.outcome !== 'SUCCEEDED') {
      throw new ApiError(
        400,
        WebhookErrorCode.WEBHOOK_DELIVERY_ERROR,
        `The webhook endpoint ${result.url} did not accept the test event: ${result.error ?? 'no answer'}.`,
        deliveryErrorDetails(result),
      );
    }
    const out: { url: string; response_status: number; response_body?: string } = { url: result.url, response_status: result.responseStatus! };
    if (result.responseBody !== null) out.response_body = result.responseBody;
    return out;
  }

  /** `GET /_sandbox/webhooks/deliveries`: the platform's events with their attempts, newest first. */
  list(platform: Platform, query: DeliveriesQuery): Page<DeliveryView> {
    const filter = {
      platformId: platform.id,
      type: query.type,
      resourceId: query.resourceId,
      since: query.since === undefined ? undefined : new Date(query.since).toISOString(),
      state: query.status,
    };
    return paginate(
      query,
      ({ afterKey, take }) => this.worker.repo.list(filter, afterKey, take),
      () => this.worker.repo.count(filter),
      (row) => row.id,
      (row) => this.present(row),
    );
  }

  /** One event of the platform with its attempts; 404 for an unknown id or another platform's. */
  get(platform: Platform, eventId: string): DeliveryView {
    return this.present(this.rowOf(platform, eventId));
  }

  /**
   * Sends an event again now, with the same id and body, starting a new round of attempts
   * (retries follow the usual schedule if it fails). Resolves to the event after the attempt.
   */
  async replay(platform: Platform, eventId: string): Promise<{ delivery: DeliveryView; attempt: AttemptResult }> {
    const row = this.rowOf(platform, eventId);
    if (row.delivery_state === 'SENDING' || this.worker.isSending(eventId)) {
      throw new ApiError(409, ErrorCode.CONFLICT, `Event ${eventId} is being delivered right now; look at it again in a moment.`, undefined, {
        retryAfterSeconds: 1,
      });
    }
    const attempt = await this.worker.deliverNow(eventId, { retry: true });
    if (!attempt) throw endpointNotSet();
    return { delivery: this.get(platform, eventId), attempt };
  }

  /**
   * `POST /_sandbox/webhooks/deliveries/{eventId}/forwarded`: a `webhooks listen --forward-to`
   * session reports what its forward of an event got; recorded as an attempt of the event.
   */
  recordForward(platform: Platform, eventId: string, body: ForwardedBody): { delivery: DeliveryView; attempt: AttemptResult } {
    this.rowOf(platform, eventId);
    const session = this.worker.listenSession(platform.id, body.listenSession);
    if (!session) {
      throw new ApiError(409, ErrorCode.CONFLICT, `Listen session ${body.listenSession} is not open on this platform (it ends when its event stream does); reconnect \`webhooks listen --forward-to\`.`);
    }
    const attempt = this.worker.recordForward(session, eventId, body);
    if (!attempt) throw notFound(ErrorCode.NOT_FOUND, `No event ${eventId} on this platform.`);
    return { delivery: this.get(platform, eventId), attempt };
  }

  /** `webhooks trigger`: fires an event of `type` through the producer its area registered. */
  async trigger(platform: Platform, body: TriggerBody): Promise<DeliveryView> {
    const producer = triggerProducerOf(body.type);
    const flow = PRODUCED_BY_FLOW[body.type];
    if (!producer && flow) {
      const message = `${body.type} cannot be triggered on its own: it is sent when ${flow}.`;
      throw new ApiError(400, ErrorCode.INVALID_INPUT, message, { errors: [{ field: 'type', message }] });
    }
    if (!producer) {
      throw new ApiError(
        501,
        ErrorCode.NOT_IMPLEMENTED,
        `The sandbox does not produce ${body.type} events, so it cannot be triggered.`,
        { type: body.type },
      );
    }
    const event: OutboxEvent = await producer(this.ctx, { platform, resourceId: body.resourceId });
    if (event.type !== body.type || event.platformId !== platform.id) {
      throw new Error(`the trigger producer of ${body.type} appended ${event.type} for ${event.platformId}`);
    }
    return this.get(platform, event.id);
  }

  /** Every event type of the contract, its webhook schema and whether it can be triggered. */
  eventTypes(): { type: string; webhook: string | null; triggerable: boolean; producedWhen?: string }[] {
    return Object.entries(WEBHOOK_TYPES).map(([type, webhook]) => {
      const triggerable = triggerProducerOf(type) !== undefined;
      const flow = PRODUCED_BY_FLOW[type];
      return { type, webhook, triggerable, ...(!triggerable && flow ? { producedWhen: flow } : {}) };
    });
  }

  private rowOf(platform: Platform, eventId: string): DeliveryRow {
    const row = this.worker.repo.byId(eventId);
    if (!row || row.platform_id !== platform.id) throw notFound(ErrorCode.NOT_FOUND, `No event ${eventId} on this platform.`);
    return row;
  }

  private present(row: DeliveryRow): DeliveryView {
    return {
      id: row.id,
      type: row.type,
      timestamp: row.created_at,
      resourceId: row.resource_id,
      data: JSON.parse(row.data) as unknown,
      status: row.delivery_state,
      nextAttemptAt: row.next_attempt_at,
      deliveredAt: row.delivered_at,
      attempts: this.worker.repo.attemptsOf(row.id).map(presentAttempt),
    };
  }
}

function deliveryErrorDetails(result: AttemptResult): Record<string, unknown> {
  const details: Record<string, unknown> = { url: result.url, eventId: result.eventId };
  if (result.responseStatus !== null) details.response_status = result.responseStatus;
  if (result.responseBody !== null) details.response_body = result.responseBody.slice(0, 2000);
  if (result.error !== null) details.error = result.error;
  details.latencyMs = result.latencyMs;
  return details;
}

/** The webhooks service of a sandbox. */
export function webhooksService(ctx: SandboxContext): WebhooksService {
  return new WebhooksService(ctx);
}
