import type { OperationHandlers } from '../area.js';
import { getImportJob, MAX_CSV_BYTES, presentImportJob, readCsv, slices, startImport, type ReadCsv } from './bulk.js';
import { MultipartError, readMultipart } from '../../server/multipart.js';
import { jsonText } from '../../server/json-text.js';
import { signedHeadersOf } from '../../server/signed-headers.js';
import { jsonBody, listQueryOf } from '../../server/validate.js';
import { updateGuards } from './guards.js';
import { contactConfirm, customerCreate, customerListQuery, customerUpdate } from './schemas.js';
import {
  confirmContactCode,
  createCustomer,
  customerWireText,
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
    return c.body(customerWireText(createCustomer(c.get('ctx'), c.get('platform'), input)), 201, { 'Content-Type': 'application/json' });
  },
  listCustomers: (c) => jsonText(c, listCustomersJson(c.get('ctx'), c.get('platform'), listQueryOf(c, customerListQuery))),
  getCustomerById: (c) => c.json(presentCustomer(findCustomer(c.get('ctx'), c.get('platform').id, c.req.param('customerId')!))),
  updateCustomerById: async (c) => {
    const input = await jsonBody(c, customerUpdate);
    const ctx = c.get('ctx');
    const platform = c.get('platform');
    const customerId = c.req.param('customerId')!;
    // The guards registered with customers (wallet-auth: an email/phone tied to embedded-wallet
    // OTP credentials changes by signed retry) may answer with a challenge instead.
    const outcome = ctx.tx(() => {
      const current = findCustomer(ctx, platform.id, customerId);
      const change = input as { email?: string; phoneNumber?: string };
      const headers = signedHeadersOf(c);
      for (const guard of updateGuards) {
        const challenge = guard(ctx, platform, { id: current.id, email: current.profile.email, phoneNumber: current.profile.phoneNumber }, change, headers);
        if (challenge) return challenge;
      }
      return presentCustomer(updateCustomer(ctx, platform, customerId, input));
    });
    return 'payloadToSign' in outcome ? c.json(outcome, 202) : c.json(outcome);
  },
  deleteCustomerById: (c) => c.json(presentCustomer(deleteCustomer(c.get('ctx'), c.get('platform'), c.req.param('customerId')!))),
  getEndUserTerms: (c) => c.json(endUserTerms()),
  uploadCustomersCsv: async (c) => {
    let csv: ReadCsv | undefined;
    if ((c.req.header('Content-Type') ?? '').toLowerCase().startsWith('multipart/form-data')) {
      try {
        const fields = await readMultipart(
          c,
          async (part) => {
            if (part.name === 'file' && csv === undefined) csv = await readCsv(part.stream);
            else part.stream.resume();
          },
          { fieldSize: MAX_CSV_BYTES },
        );
        // The file sent as a text part: read in slices too.
        if (csv === undefined && typeof fields.file === 'string') csv = await readCsv(slices(fields.file));
      } catch (error) {
        // A chunked upload past the limit fails with the limit's own answer; another unreadable form is no file.
        if (!(error instanceof MultipartError)) throw error;
      }
    }
    const job = await startImport(c.get('ctx'), c.get('platform'), csv);
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
