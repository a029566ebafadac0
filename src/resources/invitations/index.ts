import type { Area } from '../area.js';
import { invitationMigrations } from './repo.js';
import { handlers } from './routes.js';
import { removePlatformInvitations } from './service.js';

export { invitationsConfigured, setInvitationsConfigured } from './service.js';
export { invitationConfigBody } from './schemas.js';

/** UMA invitations: create from a customer, get by code, claim (INVITATION.CLAIMED webhook), cancel; expiry on the sandbox clock. */
export const invitationsArea: Area = {
  name: 'invitations',
  migrations: invitationMigrations,
  handlers,
  resetPlatform: (ctx, platform) => removePlatformInvitations(ctx, platform.id),
};
