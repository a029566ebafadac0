import { describe, expect, it } from 'vitest';
import { platformService } from '../../src/tenancy/index.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { unique, useSandbox } from '../helpers/sandbox.js';

const s = useSandbox();

describe('webhooks trigger for customer, verification and bulk-upload events', () => {
  it.each(['CUSTOMER.KYC_PENDING', 'CUSTOMER.KYC_APPROVED', 'CUSTOMER.KYC_REJECTED', 'CUSTOMER.KYB_PENDING', 'CUSTOMER.KYB_APPROVED', 'CUSTOMER.KYB_REJECTED'])(
    '%s creates a customer through the services and takes it there',
    async (type) => {
      for (const regulated of [true, false]) {
        const api = await s.api.newPlatform({ regulated });
        const res = await api.post('/_sandbox/webhooks/trigger', { type });
        expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
        const platformId = platformService(s.sandbox.context).byClientId(api.clientId)!.id;
        const event = s.sandbox.context.outbox.list(platformId, 0, 1000).filter((e) => e.type === type).pop()!;
        assertFitsWebhook('customer-update', { id: event.id, type: event.type, timestamp: event.createdAt, data: event.data });
        expect((await api.get(`/customers/${event.resourceId}`)).body).toEqual(event.data);
      }
    },
  );

  it('with --resource sends the customer as it is, and refuses a status it does not have', async () => {
    const api = await s.api.newPlatform();
    const customer = await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: unique('c'), fullName: 'Grace Hopper' });
    expect((await api.post('/_sandbox/webhooks/trigger', { type: 'CUSTOMER.KYC_APPROVED', resourceId: customer.body.id })).status).toBeLessThan(300);
    expect((await api.post('/_sandbox/webhooks/trigger', { type: 'CUSTOMER.KYC_REJECTED', resourceId: customer.body.id })).status).toBe(409);
    expect((await api.post('/_sandbox/webhooks/trigger', { type: 'CUSTOMER.KYB_APPROVED', resourceId: customer.body.id })).status).toBe(409);
    expect((await api.post('/_sandbox/webhooks/trigger', { type: 'VERIFICATION.APPROVED' })).status).toBe(400);
    expect((await api.post('/_sandbox/webhooks/trigger', { type: 'BULK_UPLOAD.COMPLETED', resourceId: 'BulkUploadJob:nope' })).status).toBe(404);
  });
});
