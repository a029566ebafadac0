import type { OperationHandlers } from '../area.js';
import { idempotent } from '../../server/idempotency.js';
import { jsonBody } from '../../server/validate.js';
import {
  approvePaymentRequest,
  cancelTransactionRequest,
  confirmReceiptRequest,
  executeQuoteRequest,
  quoteRequest,
  rejectPaymentRequest,
  sandboxSendRequest,
} from './schemas.js';
import { cancelTransaction, confirmReceipt, createQuote, decidePendingPayment, executeQuote, getQuote, sandboxSend } from './service.js';

/** Cross-currency transfers (quotes), their execution, sandbox real-time funding and the transaction actions. */
export const handlers: OperationHandlers = {
  createQuote: async (c) => {
    const request = await jsonBody(c, quoteRequest);
    return idempotent(c, 'createQuote', request, () => createQuote(c.get('ctx'), c.get('platform'), request, c.req.header('Service-Wallet-Signature')));
  },
  getQuoteById: (c) => c.json(getQuote(c.get('ctx'), c.get('platform').id, c.req.param('quoteId')!)),
  executeQuote: async (c) => {
    const request = await jsonBody(c, executeQuoteRequest, { optional: true });
    const quoteId = c.req.param('quoteId')!;
    return idempotent(c, 'executeQuote', { quoteId, ...request }, () => ({ status: 200, body: executeQuote(c.get('ctx'), c.get('platform'), quoteId, c.req.header('Service-Wallet-Signature')) }));
  },
  sandboxSend: async (c) => {
    const request = await jsonBody(c, sandboxSendRequest);
    return c.json(sandboxSend(c.get('ctx'), c.get('platform'), request));
  },
  cancelTransaction: async (c) => {
    const { reason } = await jsonBody(c, cancelTransactionRequest, { optional: true });
    return c.json(cancelTransaction(c.get('ctx'), c.get('platform'), c.req.param('transactionId')!, reason));
  },
  confirmReceiptDelivery: async (c) => {
    const { receiptDeliveryConfirmedAt } = await jsonBody(c, confirmReceiptRequest, { optional: true });
    return c.json(confirmReceipt(c.get('ctx'), c.get('platform'), c.req.param('transactionId')!, receiptDeliveryConfirmedAt));
  },
  approvePendingPayment: async (c) => {
    await jsonBody(c, approvePaymentRequest, { optional: true });
    return decidePendingPayment(c.get('ctx'), c.get('platform'), c.req.param('transactionId')!);
  },
  rejectPendingPayment: async (c) => {
    await jsonBody(c, rejectPaymentRequest, { optional: true });
    return decidePendingPayment(c.get('ctx'), c.get('platform'), c.req.param('transactionId')!);
  },
};
