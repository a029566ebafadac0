import { describe, expect, it } from 'vitest';
import { platformService } from '../../src/tenancy/index.js';
import { Receiver } from '../events/receiver.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { individual, unique, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();

async function inviter(api: Api) {
  const umaAddress = `$${unique('ann').toLowerCase()}@sandbox.uma.money`;
  const res = await api.post('/customers', individual(['USD'], { umaAddress }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { customer: res.body, umaAddress, platformId: platformService(s.sandbox.context).byClientId(api.clientId)!.id };
}

const claimedEvents = (platformId: string, code: string) =>
  s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => e.resourceId === code && e.type === 'INVITATION.CLAIMED');

describe('UMA invitations', () => {
  it('creates, claims from another platform (webhook to the inviter) and refuses a second claim', async () => {
    const api = await s.api.newPlatform();
    const invitee = await s.api.newPlatform();
    const { umaAddress, platformId } = await inviter(api);
    const created = await api.post('/invitations', { inviterUma: umaAddress, firstName: 'Ann', amountToSend: 12_550 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'PENDING', inviterUma: umaAddress, firstName: 'Ann', amountToSend: { amount: 12_550, currency: { code: 'USD' } } });
    const code = created.body.code as string;
    expect(created.body.url).toContain(code);

    const seen = await invitee.get(`/invitations/${code}`);
    expect(seen.status).toBe(200);
    expect(seen.body.status).toBe('PENDING');

    const claimed = await invitee.post(`/invitations/${code}/claim`, { inviteeUma: '$bob@other.example' });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ status: 'CLAIMED', inviteeUma: '$bob@other.example' });
    expect(claimed.body.claimedAt).toBeDefined();

    const events = claimedEvents(platformId, code);
    expect(events).toHaveLength(1);
    assertFitsWebhook('invitation-claimed', { id: events[0]!.id, type: events[0]!.type, timestamp: events[0]!.createdAt, data: events[0]!.data });
    expect(events[0]!.data).toMatchObject({ code, status: 'CLAIMED', inviteeUma: '$bob@other.example' });

    const again = await invitee.post(`/invitations/${code}/claim`, { inviteeUma: '$carl@other.example' });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVITATION_ALREADY_CLAIMED');
    expect((await api.get(`/invitations/${code}`)).body.inviteeUma).toBe('$bob@other.example');
    expect(claimedEvents(platformId, code)).toHaveLength(1);
    const cancelClaimed = await api.post(`/invitations/${code}/cancel`);
    expect(cancelClaimed.status).toBe(400);
    expect(cancelClaimed.body.code).toBe('INVITATION_ALREADY_CLAIMED');
  });

  it('delivers the INVITATION.CLAIMED webhook to the inviter platform\'s endpoint', async () => {
    const receiver = await Receiver.start();
    try {
      const api = await s.api.newPlatform();
      await api.patch('/config', { webhookEndpoint: receiver.url });
      const { umaAddress } = await inviter(api);
      const { body: invitation } = await api.post('/invitations', { inviterUma: umaAddress });
      const invitee = await s.api.newPlatform();
      expect((await invitee.post(`/invitations/${invitation.code}/claim`, { inviteeUma: '$dora@other.example' })).status).toBe(200);
      // The inviter's creation sent its CUSTOMER.* event first: wait for it and the claim.
      const delivery = (await receiver.waitFor(2)).find((d) => (d.body as { type?: string }).type === 'INVITATION.CLAIMED');
      expect(delivery!.headers['x-service-signature']).toBeDefined();
      expect(delivery!.body).toMatchObject({ type: 'INVITATION.CLAIMED', data: { code: invitation.code, status: 'CLAIMED', inviteeUma: '$dora@other.example' } });
      assertFitsWebhook('invitation-claimed', delivery!.body);
    } finally {
      await receiver.close();
    }
  });

  it('cancels a pending invitation; only its platform may; a cancelled one cannot be claimed', async () => {
    const api = await s.api.newPlatform();
    const other = await s.api.newPlatform();
    const { umaAddress, platformId } = await inviter(api);
    const { body: invitation } = await api.post('/invitations', { inviterUma: umaAddress });
    const forbidden = await other.post(`/invitations/${invitation.code}/cancel`);
    expect(forbidden.status).toBe(403);
    const cancelled = await api.post(`/invitations/${invitation.code}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    const claim = await other.post(`/invitations/${invitation.code}/claim`, { inviteeUma: '$bob@other.example' });
    expect(claim.status).toBe(400);
    expect(claim.body.code).toBe('INVITATION_CANCELLED');
    const twice = await api.post(`/invitations/${invitation.code}/cancel`);
    expect(twice.body.code).toBe('INVITATION_CANCELLED');
    expect(claimedEvents(platformId, invitation.code)).toHaveLength(0);
  });

  it('expires on the sandbox clock', async () => {
    const api = await s.api.newPlatform();
    const { umaAddress } = await inviter(api);
    const clock = await api.get('/_sandbox/clock');
    const expiresAt = new Date(Date.parse(clock.body.now) + 3600_000).toISOString();
    const { body: invitation } = await api.post('/invitations', { inviterUma: umaAddress, expiresAt });
    expect(invitation.expiresAt).toBe(expiresAt);
    await api.advance(3601);
    const got = await api.get(`/invitations/${invitation.code}`);
    expect(got.body.status).toBe('EXPIRED');
    const claim = await api.post(`/invitations/${invitation.code}/claim`, { inviteeUma: '$bob@other.example' });
    expect(claim.status).toBe(400);
    expect(claim.body.details.status).toBe('EXPIRED');
    expect((await api.get(`/invitations/${invitation.code}`)).body.status).toBe('EXPIRED');
  });

  it('answers bad input with 4xx and nothing written', async () => {
    const api = await s.api.newPlatform();
    const { umaAddress } = await inviter(api);
    expect((await api.get('/invitations/nope')).body.code).toBe('INVITATION_NOT_FOUND');
    expect((await api.post('/invitations/nope/claim', { inviteeUma: '$bob@other.example' })).status).toBe(404);
    expect((await api.post('/invitations', { inviterUma: 'not-an-address' })).body.code).toBe('INVALID_UMA_ADDRESS');
    expect((await api.post('/invitations', { inviterUma: '$nobody@sandbox.uma.money' })).body.code).toBe('INVALID_INPUT');
    expect((await api.post('/invitations', { inviterUma: umaAddress, amountToSend: -5 })).body.code).toBe('INVALID_INPUT');
    expect((await api.post('/invitations', { inviterUma: umaAddress, expiresAt: '2000-01-01T00:00:00Z' })).body.code).toBe('INVALID_INPUT');
    const { body: invitation } = await api.post('/invitations', { inviterUma: umaAddress });
    expect((await api.post(`/invitations/${invitation.code}/claim`, { inviteeUma: 'bob' })).body.code).toBe('INVALID_UMA_ADDRESS');
    expect((await api.post(`/invitations/${invitation.code}/claim`, { inviteeUma: umaAddress })).status).toBe(400);
    expect((await api.get(`/invitations/${invitation.code}`)).body.status).toBe('PENDING');

    expect((await api.post('/_sandbox/invitations/config', { configured: false })).status).toBe(200);
    const off = await api.post('/invitations', { inviterUma: umaAddress });
    expect(off.status).toBe(400);
    expect(off.body.code).toBe('INVITATIONS_NOT_CONFIGURED');
  });
});
