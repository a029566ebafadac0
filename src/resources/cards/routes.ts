import { Hono } from 'hono';
import type { SandboxContext } from '../../store/context.js';
import type { AppContext, AppEnv } from '../../server/env.js';
import { jsonBody, queryOf } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import {
  cardCreateRequest,
  cardSettingsUpdate,
  cardUpdateRequest,
  listCardsQuery,
  simulateAdviceRequest,
  simulateAuthorizationRequest,
  simulateBalanceInquiryRequest,
  simulateClearingRequest,
  simulateReturnRequest,
  simulateReturnReversalRequest,
} from './schemas.js';
import {
  cardSettings,
  createCard,
  getCard,
  listCards,
  openRevealFrame,
  revealCard,
  simulateAdvice,
  simulateBalanceInquiry,
  simulateClearing,
  simulateOpening,
  simulateReturn,
  simulateReturnReversal,
  simulationOutcome,
  updateCard,
  updateCardSettings,
  type OpeningKind,
} from './service.js';

const idOf = (c: AppContext) => c.req.param('id')!;

const opening = (kind: OpeningKind) => async (c: AppContext) => {
  const input = await jsonBody(c, simulateAuthorizationRequest);
  return c.json(simulateOpening(c.get('ctx'), c.get('platform'), idOf(c), kind, input), 202);
};

/** Cards and the sandbox card simulations. */
export const handlers: OperationHandlers = {
  createCard: async (c) => {
    const input = await jsonBody(c, cardCreateRequest);
    return c.json(createCard(c.get('ctx'), c.get('platform'), input), 201);
  },
  listCards: (c) => c.json(listCards(c.get('ctx'), c.get('platform').id, queryOf(c, listCardsQuery))),
  getCardById: (c) => c.json(getCard(c.get('ctx'), c.get('platform').id, idOf(c))),
  updateCardById: async (c) => {
    const input = await jsonBody(c, cardUpdateRequest);
    return c.json(updateCard(c.get('ctx'), c.get('platform'), idOf(c), input));
  },
  revealCard: (c) => {
    const body = revealCard(c.get('ctx'), c.get('platform'), idOf(c), new URL(c.req.url).origin);
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  },

  sandboxSimulateCardAuthorization: opening('authorization'),
  sandboxSimulateCardCreditAuthorization: opening('credit_authorization'),
  sandboxSimulateCardFinancialAuthorization: opening('financial_authorization'),
  sandboxSimulateCardFinancialCreditAuthorization: opening('financial_credit_authorization'),
  sandboxSimulateCardCreditAuthorizationAdvice: opening('credit_authorization_advice'),
  sandboxSimulateCardBalanceInquiry: async (c) => {
    const { merchant } = await jsonBody(c, simulateBalanceInquiryRequest);
    return c.json(simulateBalanceInquiry(c.get('ctx'), c.get('platform'), idOf(c), merchant), 202);
  },
  sandboxSimulateCardClearing: async (c) => {
    const input = await jsonBody(c, simulateClearingRequest);
    return c.json(simulateClearing(c.get('ctx'), c.get('platform'), idOf(c), input), 202);
  },
  sandboxSimulateCardReturn: async (c) => {
    const input = await jsonBody(c, simulateReturnRequest);
    return c.json(simulateReturn(c.get('ctx'), c.get('platform'), idOf(c), input), 202);
  },
  sandboxSimulateCardAuthorizationAdvice: async (c) => {
    const input = await jsonBody(c, simulateAdviceRequest);
    return c.json(simulateAdvice(c.get('ctx'), c.get('platform'), idOf(c), input), 202);
  },
  sandboxSimulateCardReturnReversal: async (c) => {
    const input = await jsonBody(c, simulateReturnReversalRequest);
    return c.json(simulateReturnReversal(c.get('ctx'), c.get('platform'), idOf(c), input), 202);
  },
};

/**
 * Control plane under `/_sandbox/cards` (behind Basic auth): the platform's card settings and
 * the outcome of a simulated message by its `issuerTransactionToken`.
 */
export function cardControlRoutes(ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/settings', (c) => c.json(cardSettings(ctx, c.get('platform').id)));
  app.patch('/settings', async (c) => c.json(updateCardSettings(ctx, c.get('platform').id, await jsonBody(c, cardSettingsUpdate))));
  app.get('/simulations/:token', (c) => c.json(simulationOutcome(ctx, c.get('platform').id, c.req.param('token'))));
  return app;
}

const escape = (value: string) => value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The card frame a reveal's `panEmbedUrl` opens (standing in for the processor's iframe): the
 * signed, unexpired URL is the capability. Never cached; the request log records the path only.
 */
export function revealFrameRoutes(_ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/embed/cards/:id', (c) => {
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    const q = (name: string) => c.req.query(name) ?? '';
    const card = openRevealFrame(c.get('ctx'), c.req.param('id'), q('exp'), q('n'), q('sig'));
    if (!card) return c.html('<!doctype html><title>Link expired</title><p>This card reveal link is invalid or expired. Request a new reveal.</p>', 404);
    const pan = card.pan.replace(/(\d{4})(?=\d)/g, '$1 ');
    return c.html(`<!doctype html><html><head><meta charset="utf-8"><title>Card details (sandbox)</title></head><body>
<p class="pan">${escape(pan)}</p><p class="exp">${String(card.expMonth).padStart(2, '0')}/${card.expYear}</p><p class="cvv">${escape(card.cvv)}</p>
</body></html>`);
  });
  return app;
}
