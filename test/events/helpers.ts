import { createVerify } from 'node:crypto';
import type { Api } from '../helpers/sandbox.js';
import { platformService } from '../../src/tenancy/index.js';
import type { RunningSandbox } from '../../src/index.js';

/** Re-runs `check` until it stops throwing (or 5 s pass): waits for async delivery, not for the clock. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 5_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** The public recipe: node's createVerify('SHA256') with the SPKI PEM over the raw body. */
export function verifies(publicKeyPem: string, raw: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const { v, s } = JSON.parse(header) as { v: string; s: string };
  if (v !== '1') return false;
  return createVerify('SHA256').update(raw).verify(publicKeyPem, s, 'base64');
}

/** The platform id behind a test client (for appending events through the context). */
export function platformIdOf(sandbox: RunningSandbox, api: Api): string {
  const platform = platformService(sandbox.context).list().find((p) => p.clientId === api.clientId);
  if (!platform) throw new Error(`no platform ${api.clientId}`);
  return platform.id;
}

/** The delivery record of an event, from the control plane. */
export async function deliveryOf(api: Api, eventId: string): Promise<any> {
  const res = await api.get(`/_sandbox/webhooks/deliveries/${encodeURIComponent(eventId)}`);
  if (res.status !== 200) throw new Error(`GET delivery ${eventId}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Waits until the event reaches `status` (its attempt has been recorded). */
export function deliveryReaches(api: Api, eventId: string, status: string, attempts?: number, timeoutMs?: number): Promise<any> {
  return eventually(async () => {
    const delivery = await deliveryOf(api, eventId);
    if (delivery.status !== status || (attempts !== undefined && delivery.attempts.length !== attempts)) {
      throw new Error(`${eventId} is ${delivery.status} with ${delivery.attempts.length} attempts, not ${status}`);
    }
    return delivery;
  }, timeoutMs);
}

/** A realistic individual customer as GET /customers/{id} returns it. */
export function individualCustomer(id: string, kycStatus = 'APPROVED'): Record<string, unknown> {
  return {
    id,
    platformCustomerId: `pc-${id.slice(-8)}`,
    customerType: 'INDIVIDUAL',
    umaAddress: `$jane.${id.slice(-8)}@sandbox.example.com`,
    region: 'US',
    currencies: ['USD'],
    email: 'jane@example.com',
    kycStatus,
    fullName: 'Jane Doe',
    birthDate: '1990-01-15',
    nationality: 'US',
    address: { line1: '123 Main St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
    createdAt: '2025-10-13T09:00:00.000Z',
    updatedAt: '2025-10-13T09:00:00.000Z',
    isDeleted: false,
  };
}
