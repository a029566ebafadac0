import { guardCustomerContactChange, signedHeadersOf } from '../wallet-auth/index.js';
import type { OperationHandlers } from '../area.js';
import { getImportJob, presentImportJob, startImport } from './bulk.js';
import { ApiError } from '../../core/errors.js';
import { jsonText } from '../../server/json-text.js';
import { jsonBody, listQueryOf } from '../../server/validate.js';
import { contactConfirm, customerCreate, customerListQuery, customerUpdate } from './schemas.js';
import {
  confirmContactCode,
  createCustomer,
  deleteCustomer,
  endUserTerms,
  findCustomer,
  listCustomersJson,
  presentCustomer,
  sendContactCode,
  updateCustomer,
} from './service.js';

/** Customers and Contact Verification operations. */
export const handlers: OperationHandlers = {
  createCustomer: async (c) => {
    const input = await jsonBody(c, customerCreate);
    return c.json(presentCustomer(createCustomer(c.get('ctx'), c.get('platform'), input)), 201);
  },
  listCustomers: (c) => jsonText(c, listCustomersJson(c.get('ctx'), c.get('platform'), listQueryOf(c, customerListQuery))),
  getCustomerById: (c) => c.json(presentCustomer(findCustomer(c.get('ctx'), c.get('platform').id, c.req.param('customerId')!))),
  updateCustomerById: async (c) => {
    const input = await jsonBody(c, customerUpdate);
    const ctx = c.get('ctx');
    const platform = c.get('platform');
    const customerId = c.req.param('customerId')!;
    // Wallet-auth: an email/phone tied to embedded-wallet OTP credentials changes by signed retry.
    const outcome = ctx.tx(() => {
      const current = findCustomer(ctx, platform.id, customerId);
      const change = input as { email?: string; phoneNumber?: string };
      const challenge = guardCustomerContactChange(ctx, platform, { id: current.id, email: current.profile.email, phoneNumber: current.profile.phoneNumber }, change, signedHeadersOf(c));
      return challenge ?? presentCustomer(updateCustomer(ctx, platform, customerId, input));
    });
    return 'payloadToSign' in outcome ? c.json(outcome, 202) : c.json(outcome);
  },
  deleteCustomerById: (c) => c.json(presentCustomer(deleteCustomer(c.get('ctx'), c.get('platform'), c.req.param('customerId')!))),
  getEndUserTerms: (c) => c.json(endUserTerms()),
  uploadCustomersCsv: async (c) => {
    let file: Uint8Array | undefined;
    if ((c.req.header('Content-Type') ?? '').toLowerCase().startsWith('multipart/form-data')) {
      // A chunked upload past the limit fails its stream with the limit's own answer; another unreadable form is no file.
      const body = await c.req.parseBody().catch((error: unknown) => {
        if (error instanceof ApiError) throw error;
        return {} as Record<string, unknown>;
      });
      const part = body.file;
      if (part instanceof File) file = new Uint8Array(await part.arrayBuffer());
      else if (typeof part === 'string') file = new TextEncoder().encode(part);
    }
    const job = startImport(c.get('ctx'), c.get('platform'), file);
    return c.json({ jobId: job.id, status: job.status }, 202);
  },
  getBulkCustomerImportJob: (c) => c.json(presentImportJob(getImportJob(c.get('ctx'), c.get('platform'), c.req.param('jobId')!))),
  sendCustomerEmailVerification: (c) => {
    sendContactCode(c.get('ctx'), c.get('platform'), c.req.param('customerId')!, 'email');
    return c.body(null, 204);
  },
  sendCustomerPhoneVerification: (c) => {
    sendContactCode(c.get('ctx'), c.get('platform'), c.req.param('customerId')!, 'phone');
    return c.body(null, 204);
  },
  confirmCustomerEmailVerification: async (c) => {
    const { code } = await jsonBody(c, contactConfirm);
    return c.json(presentCustomer(confirmContactCode(c.get('ctx'), c.get('platform'), c.req.param('customerId')!, 'email', code)));
  },
  confirmCustomerPhoneVerification: async (c) => {
    const { code } = await jsonBody(c, contactConfirm);
    return c.json(presentCustomer(confirmContactCode(c.get('ctx'), c.get('platform'), c.req.param('customerId')!, 'phone', code)));
  },
};
