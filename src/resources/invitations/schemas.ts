import * as z from 'zod';

/** `UmaInvitationCreateRequest`. */
export const invitationCreateRequest = z.object({
  inviterUma: z.string().min(1).max(320),
  firstName: z.string().min(1).max(255).optional(),
  amountToSend: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
});
export type InvitationCreateRequest = z.infer<typeof invitationCreateRequest>;

/** `UmaInvitationClaimRequest`. */
export const invitationClaimRequest = z.object({
  inviteeUma: z.string().min(1).max(320),
});
export type InvitationClaimRequest = z.infer<typeof invitationClaimRequest>;

/** Body of `POST /_sandbox/invitations/config`: whether invitations are configured for the platform. */
export const invitationConfigBody = z.object({ configured: z.boolean() });
