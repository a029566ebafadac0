import { ApiError, ErrorCode } from '../../core/errors.js';
import type { SandboxContext } from '../../store/context.js';
import type { OutboxEvent } from '../../store/outbox.js';
import { registerTriggerProducer, type TriggerRequest } from '../../events/triggers.js';
import { createExternalAccount } from '../external-accounts/index.js';
import { provisionPlatformAccounts } from '../internal-accounts/index.js';
import type { Platform } from '../../tenancy/index.js';
import { eventTypeOf, getTransaction, type TransactionBody } from '../transactions/index.js';
import { fund, transferIn, transferOut } from './service.js';

/** The event types a transaction can carry now: its status's, and its refund's. */
function typesOf(transaction: TransactionBody): string[] {
  const types = [eventTypeOf(transaction.type, transaction.status)];
  const refund = transaction.refund as { status?: string } | undefined;
  if (refund?.status) types.push(`${transaction.type}_PAYMENT.REFUND_${refund.status}`);
  return types;
}

/** `--resource <transactionId>`: the event again with the transaction as GET returns it, if it can have that type. */
function fromTransaction(ctx: SandboxContext, platform: Platform, transactionId: string, type: string): OutboxEvent {
  const transaction = getTransaction(ctx, platform.id, transactionId);
  if (!typesOf(transaction).includes(type)) {
    throw new ApiError(409, ErrorCode.CONFLICT, `Transaction ${transactionId} is ${transaction.type} ${transaction.status}; it can carry ${typesOf(transaction).join(' or ')}, not ${type}.`);
  }
  return ctx.tx(() => ctx.outbox.append(platform.id, type, transaction.id, transaction));
}

/** A platform USD account and a fresh platform external account whose account number ends in `suffix`. */
function platformAccounts(ctx: SandboxContext, platform: Platform, suffix: string): { usd: string; external: string } {
  const usd = provisionPlatformAccounts(ctx, platform).find((row) => row.currency === 'USD');
  if (!usd) throw new ApiError(409, ErrorCode.CONFLICT, 'The platform has no USD account: add USD to supportedCurrencies (PATCH /config) to trigger payment events.');
  const digits = ctx.ids.uuid().replace(/\D/g, '').slice(-9).padStart(9, '7');
  const external = createExternalAccount(
    ctx,
    platform,
    {
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: `${digits}${suffix}`, routingNumber: '021000021', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Sandbox Trigger LLC' } },
    } as never,
    'platform',
  );
  return { usd: usd.id, external: external.id };
}

type Fresh = (ctx: SandboxContext, platform: Platform) => TransactionBody;

const amount = 25_00;
const fresh: Record<string, Fresh> = {
  'INCOMING_PAYMENT.COMPLETED': (ctx, platform) => {
    const { usd } = platformAccounts(ctx, platform, '000');
    return fund(ctx, platform, usd, amount);
  },
  'INCOMING_PAYMENT.PENDING': (ctx, platform) => {
    const { usd, external } = platformAccounts(ctx, platform, '005');
    return transferIn(ctx, platform, { source: { accountId: external }, destination: { accountId: usd }, amount });
  },
  'INCOMING_PAYMENT.FAILED': (ctx, platform) => {
    const { usd, external } = platformAccounts(ctx, platform, '002');
    return transferIn(ctx, platform, { source: { accountId: external }, destination: { accountId: usd }, amount });
  },
  'OUTGOING_PAYMENT.COMPLETED': (ctx, platform) => {
    const { usd, external } = platformAccounts(ctx, platform, '000');
    fund(ctx, platform, usd, amount);
    return transferOut(ctx, platform, { source: { accountId: usd }, destination: { accountId: external }, amount });
  },
  'OUTGOING_PAYMENT.PENDING': (ctx, platform) => {
    const { usd, external } = platformAccounts(ctx, platform, '005');
    fund(ctx, platform, usd, amount);
    return transferOut(ctx, platform, { source: { accountId: usd }, destination: { accountId: external }, amount });
  },
  'OUTGOING_PAYMENT.FAILED': (ctx, platform) => {
    const { usd, external } = platformAccounts(ctx, platform, '003');
    return transferOut(ctx, platform, { source: { accountId: usd }, destination: { accountId: external }, amount });
  },
};

/** Every payment event type of the contract; fresh ones are made through the transfer services on the platform's own accounts. */
const PAYMENT_TYPES = [
  'INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED', 'INCOMING_PAYMENT.FAILED',
  'INCOMING_PAYMENT.REFUND_PENDING', 'INCOMING_PAYMENT.REFUND_COMPLETED', 'INCOMING_PAYMENT.REFUND_FAILED',
  'OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.PENDING_AUTHORIZATION', 'OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED',
  'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.EXPIRED', 'OUTGOING_PAYMENT.REFUND_PENDING', 'OUTGOING_PAYMENT.REFUND_COMPLETED',
  'OUTGOING_PAYMENT.REFUND_FAILED',
];

/** Registers `webhooks trigger` producers for every payment event type. */
export function registerPaymentTriggers(): void {
  for (const type of PAYMENT_TYPES) {
    registerTriggerProducer(type, (ctx: SandboxContext, { platform, resourceId }: TriggerRequest) => {
      if (resourceId !== undefined) return fromTransaction(ctx, platform, resourceId, type);
      const make = fresh[type];
      if (!make) {
        throw new ApiError(400, ErrorCode.INVALID_INPUT, `A new transaction cannot be brought to ${type} on demand; pass --resource <transactionId> of a transaction in that state (the quote suffix rules reach every refund and failure).`);
      }
      return ctx.tx(() => {
        const transaction = make(ctx, platform);
        const event = ctx.outbox.latest(platform.id, transaction.id, type);
        if (!event) throw new Error(`trigger ${type}: the flow did not record it`);
        return event;
      });
    });
  }
}
