import { ApiError, ErrorCode } from '../../core/errors.js';
import type { SandboxContext } from '../../store/context.js';
import type { OutboxEvent } from '../../store/outbox.js';
import { registerTriggerProducer, type TriggerRequest } from '../../events/triggers.js';
import { END_USER_TERMS } from '../../rules/kyc-rules.js';
import {
  createCustomer,
  customerCreate,
  findCustomer,
  getImportJob,
  presentCustomer,
  presentImportJob,
  setCustomerStatus,
  statusEventType,
} from '../customers/index.js';
import type { Platform } from '../../tenancy/index.js';
import { getVerification, presentVerification } from './service.js';

const STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;

/** A realistic new customer of the type, through the same service as `POST /customers`. */
function newCustomer(ctx: SandboxContext, platform: Platform, customerType: 'INDIVIDUAL' | 'BUSINESS'): string {
  const common = {
    platformCustomerId: `trigger-${ctx.ids.uuid()}`,
    ...(platform.regulated
      ? {}
      : { endUserTermsConsent: { acceptedAt: ctx.clock.iso(), ipAddress: '203.0.113.10', termsVersion: END_USER_TERMS.version, acceptanceMethod: 'CHECKBOX' } }),
  };
  const input =
    customerType === 'INDIVIDUAL'
      ? { customerType, ...common, fullName: 'Ada Lovelace', birthDate: '1990-12-10', nationality: 'GB', email: 'ada@example.com' }
      : {
          customerType,
          ...common,
          businessInfo: { legalName: 'Analytical Engines Ltd', country: 'US', taxId: '47-1234567', incorporatedOn: '2015-06-01', registrationNumber: '7700123' },
        };
  return createCustomer(ctx, platform, customerCreate.parse(input)).id;
}

function customerEvent(ctx: SandboxContext, { platform, resourceId }: TriggerRequest, type: string, customerType: 'INDIVIDUAL' | 'BUSINESS', status: (typeof STATUSES)[number]): OutboxEvent {
  return ctx.tx(() => {
    if (resourceId !== undefined) {
      const customer = findCustomer(ctx, platform.id, resourceId);
      const current = statusEventType(customer.customerType, customer.kycStatus);
      if (current !== type) {
        throw new ApiError(409, ErrorCode.CONFLICT, `Customer ${resourceId} is a ${customer.customerType} with status ${customer.kycStatus}; it can carry ${current ?? 'no status event'}, not ${type}.`);
      }
      return ctx.outbox.append(platform.id, type, customer.id, presentCustomer(customer));
    }
    // A new customer goes through review (PENDING) to the decision, as a real one does.
    const id = newCustomer(ctx, platform, customerType);
    setCustomerStatus(ctx, platform, id, 'PENDING');
    if (status !== 'PENDING') setCustomerStatus(ctx, platform, id, status);
    const event = ctx.outbox.latest(platform.id, id, type);
    if (!event) throw new Error(`trigger ${type}: the customer flow did not record it`);
    return event;
  });
}

/** Resource-only producers: the event again with the resource as its GET returns it, if it is in that state. */
function fromResource(type: string, what: string, load: (ctx: SandboxContext, platform: Platform, id: string) => { state: string; data: Record<string, unknown>; id: string }) {
  return (ctx: SandboxContext, { platform, resourceId }: TriggerRequest): OutboxEvent => {
    if (resourceId === undefined) {
      throw new ApiError(400, ErrorCode.INVALID_INPUT, `${type} needs --resource <${what} id>: pass one whose state is ${type.split('.')[1]}.`);
    }
    return ctx.tx(() => {
      const resource = load(ctx, platform, resourceId);
      if (`${type.split('.')[0]}.${resource.state}` !== type) {
        throw new ApiError(409, ErrorCode.CONFLICT, `${what} ${resourceId} is ${resource.state}; it cannot carry ${type}.`);
      }
      return ctx.outbox.append(platform.id, type, resource.id, resource.data);
    });
  };
}

/** Registers `webhooks trigger` producers for the customer, verification and bulk-upload events. */
export function registerKycTriggers(): void {
  for (const customerType of ['INDIVIDUAL', 'BUSINESS'] as const) {
    for (const status of STATUSES) {
      const type = `CUSTOMER.${customerType === 'INDIVIDUAL' ? 'KYC' : 'KYB'}_${status}`;
      registerTriggerProducer(type, (ctx, request) => customerEvent(ctx, request, type, customerType, status));
    }
  }
  for (const status of ['APPROVED', 'REJECTED', 'RESOLVE_ERRORS', 'IN_PROGRESS', 'PENDING_MANUAL_REVIEW']) {
    const type = `VERIFICATION.${status}`;
    registerTriggerProducer(type, fromResource(type, 'verification', (ctx, platform, id) => {
      const row = getVerification(ctx, platform, id);
      return { id: row.id, state: row.verification_status, data: presentVerification(row) };
    }));
  }
  for (const status of ['COMPLETED', 'FAILED']) {
    const type = `BULK_UPLOAD.${status}`;
    registerTriggerProducer(type, fromResource(type, 'bulk upload job', (ctx, platform, id) => {
      const row = getImportJob(ctx, platform, id);
      return { id: row.id, state: row.status, data: presentImportJob(row) };
    }));
  }
}
