/**
 * Every event type of the contract (`components.schemas.WebhookType`), with the key of the
 * contract's `webhooks` entry whose body schema it is delivered under (null: the contract
 * lists the type but no webhook carries it). test/events/webhook-types.test.ts checks this
 * table against fixtures/contract.json.
 */
export const WEBHOOK_TYPES: Readonly<Record<string, string | null>> = {
  "OUTGOING_PAYMENT.PENDING": "outgoing-payment",
  "OUTGOING_PAYMENT.PENDING_AUTHORIZATION": "outgoing-payment",
  "OUTGOING_PAYMENT.PROCESSING": "outgoing-payment",
  "OUTGOING_PAYMENT.COMPLETED": "outgoing-payment",
  "OUTGOING_PAYMENT.FAILED": "outgoing-payment",
  "OUTGOING_PAYMENT.EXPIRED": "outgoing-payment",
  "OUTGOING_PAYMENT.REFUND_PENDING": "outgoing-payment",
  "OUTGOING_PAYMENT.REFUND_COMPLETED": "outgoing-payment",
  "OUTGOING_PAYMENT.REFUND_FAILED": "outgoing-payment",
  "INCOMING_PAYMENT.PENDING": "incoming-payment",
  "INCOMING_PAYMENT.COMPLETED": "incoming-payment",
  "INCOMING_PAYMENT.FAILED": "incoming-payment",
  "INCOMING_PAYMENT.REFUND_PENDING": "incoming-payment",
  "INCOMING_PAYMENT.REFUND_COMPLETED": "incoming-payment",
  "INCOMING_PAYMENT.REFUND_FAILED": "incoming-payment",
  "CUSTOMER.KYC_APPROVED": "customer-update",
  "CUSTOMER.KYC_REJECTED": "customer-update",
  "CUSTOMER.KYC_PENDING": "customer-update",
  "CUSTOMER.KYB_APPROVED": "customer-update",
  "CUSTOMER.KYB_REJECTED": "customer-update",
  "CUSTOMER.KYB_PENDING": "customer-update",
  "VERIFICATION.APPROVED": "verification-update",
  "VERIFICATION.REJECTED": "verification-update",
  "VERIFICATION.RESOLVE_ERRORS": "verification-update",
  "VERIFICATION.IN_PROGRESS": "verification-update",
  "VERIFICATION.PENDING_MANUAL_REVIEW": "verification-update",
  "VERIFICATION.READY_FOR_VERIFICATION": null,
  "EXTERNAL_ACCOUNT.STATUS_UPDATED": "external-account-status",
  "INTERNAL_ACCOUNT.BALANCE_UPDATED": "internal-account-status",
  "INTERNAL_ACCOUNT.STATUS_UPDATED": "internal-account-status",
  "INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED": "internal-account-status",
  "INVITATION.CLAIMED": "invitation-claimed",
  "BULK_UPLOAD.COMPLETED": "bulk-upload",
  "BULK_UPLOAD.FAILED": "bulk-upload",
  "AGENT_ACTION.PENDING_APPROVAL": "agent-action",
  "CARD.STATE_CHANGE": "card-state-change",
  "CARD.FUNDING_SOURCE_CHANGE": "card-funding-source-change",
  "CARD_TRANSACTION.AUTHORIZED": "card-transaction",
  "CARD_TRANSACTION.PARTIALLY_SETTLED": "card-transaction",
  "CARD_TRANSACTION.SETTLED": "card-transaction",
  "CARD_TRANSACTION.REFUNDED": "card-transaction",
  "CARD_TRANSACTION.EXCEPTION": "card-transaction",
  "TEST": "test-webhook",
};

/** The contract's event types, in its order. */
export const webhookTypeNames: readonly string[] = Object.keys(WEBHOOK_TYPES);

/** Whether `type` is an event type of the contract. */
export function isWebhookType(type: string): boolean {
  return Object.hasOwn(WEBHOOK_TYPES, type);
}
