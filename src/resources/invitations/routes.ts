import { jsonBody } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import { invitationClaimRequest, invitationCreateRequest } from './schemas.js';
import { cancelInvitation, claimInvitation, createInvitation, getInvitation } from './service.js';

/** Invitations operations. */
export const handlers: OperationHandlers = {
  createInvitation: async (c) => {
    const request = await jsonBody(c, invitationCreateRequest);
    return c.json(createInvitation(c.get('ctx'), c.get('platform'), request), 201);
  },
  getInvitation: (c) => c.json(getInvitation(c.get('ctx'), c.req.param('invitationCode')!)),
  claimInvitation: async (c) => {
    const request = await jsonBody(c, invitationClaimRequest);
    return c.json(claimInvitation(c.get('ctx'), c.req.param('invitationCode')!, request));
  },
  cancelInvitation: (c) => c.json(cancelInvitation(c.get('ctx'), c.get('platform'), c.req.param('invitationCode')!)),
};
