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
import { decideTransaction } from '../transactions/index.js';
import { walletSignatureOf } from '../../server/signed-headers.js';
import { cancelTransaction, confirmReceipt, createQuote, decidePendingPayment, executeQuote, getQuote, sandboxSend } from './service.js';

/** Cross-currency transfers (quotes), their execution, sandbox real-time funding and the transaction actions. */
export const handlers: OperationHandlers = {
  createQuote: async (c) => {
    const request = await jsonBody(c, quoteRequest);
    const walletSignature = walletSignatureOf(c);
    return idempotent(c, 'createQuote', request, () => createQuote(c.get('ctx'), c.get('platform'), request, walletSignature));
  },
  getQuoteById: (c) => c.json(getQuote(c.get('ctx'), c.get('platform').id, c.req.param('quoteId')!)),
  executeQuote: async (c) => {
    const request = await jsonBody(c, executeQuoteRequest, { optional: true });
    const quoteId = c.req.param('quoteId')!;
    const walletSignature = walletSignatureOf(c);
    return idempotent(c, 'executeQuote', { quoteId, ...request }, () => ({
      status: 200,
      body: executeQuote(c.get('ctx'), c.get('platform'), quoteId, { scaFactor: request.scaFactor, walletSignature }),
    }));
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
  // Transactions pending platform approval: a guard that holds the payment (an agent's action)
  // decides it, else the transactions area dispatches to the kind that holds it.
  approvePendingPayment: async (c) => {
    const { receiverCustomerInfo } = await jsonBody(c, approvePaymentRequest, { optional: true });
    const transactionId = c.req.param('transactionId')!;
    return c.json(
      decidePendingPayment(c.get('ctx'), c.get('platform'), transactionId, 'APPROVE') ??
        decideTransaction(c.get('ctx'), c.get('platform').id, transactionId, { decision: 'APPROVE', via: 'API', receiverCustomerInfo }),
    );
  },
  rejectPendingPayment: async (c) => {
    const { reason } = await jsonBody(c, rejectPaymentRequest, { optional: true });
    const transactionId = c.req.param('transactionId')!;
    return c.json(
      decidePendingPayment(c.get('ctx'), c.get('platform'), transactionId, 'REJECT', reason) ??
        decideTransaction(c.get('ctx'), c.get('platform').id, transactionId, { decision: 'REJECT', via: 'API', reason }),
    );
  },
};
