import * as z from 'zod';

/** `InternalAccount:<uuid>` (the list operations answer 400 otherwise). */
export const internalAccountId = z.string().regex(/^InternalAccount:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'an InternalAccount:<uuid> id');

/** A SEC1 P-256 public key in hex, compressed or uncompressed (curve membership is checked by the service). */
export const clientPublicKey = z.string().regex(/^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/, 'a compressed (66 hex, 02/03) or uncompressed (130 hex, 04) SEC1 P-256 key');

const nickname = z
  .string()
  .transform((value) => value.trim())
  .pipe(z.string().min(1).max(100).regex(/^[\p{L}\p{N} ._\-'()]+$/u, 'letters, numbers, spaces and . _ - \' ( )'));

const attestation = z.object({
  credentialId: z.string().min(1),
  clientDataJson: z.string().min(1),
  attestationObject: z.string().min(1),
  transports: z.array(z.enum(['usb', 'nfc', 'ble', 'internal', 'hybrid'])).optional(),
});

/** `AuthCredentialCreateRequestOneOf`. */
export const credentialCreateRequest = z.discriminatedUnion('type', [
  z.object({ type: z.literal('EMAIL_OTP'), accountId: z.string().min(1) }),
  z.object({ type: z.literal('SMS_OTP'), accountId: z.string().min(1) }),
  z.object({ type: z.literal('OAUTH'), accountId: z.string().min(1), oidcToken: z.string().min(1) }),
  z.object({ type: z.literal('PASSKEY'), accountId: z.string().min(1), nickname, challenge: z.string().min(1), attestation }),
]);
export type CredentialCreateRequest = z.infer<typeof credentialCreateRequest>;

/** `PasskeyAssertion`. */
export const passkeyAssertion = z.object({
  credentialId: z.string().min(1),
  clientDataJson: z.string().min(1),
  authenticatorData: z.string().min(1),
  signature: z.string().min(1),
  userHandle: z.string().optional(),
});

/** `AuthCredentialVerifyRequestOneOf`. */
export const credentialVerifyRequest = z.discriminatedUnion('type', [
  z.object({ type: z.literal('EMAIL_OTP'), encryptedOtpBundle: z.string().min(1) }),
  z.object({ type: z.literal('SMS_OTP'), encryptedOtpBundle: z.string().min(1) }),
  z.object({ type: z.literal('OAUTH'), oidcToken: z.string().min(1), clientPublicKey }),
  z.object({ type: z.literal('PASSKEY'), assertion: passkeyAssertion }),
]);
export type CredentialVerifyRequest = z.infer<typeof credentialVerifyRequest>;

/** `AuthCredentialChallengeRequest` (optional body). */
export const challengeRequest = z.object({ clientPublicKey: clientPublicKey.optional() });

/** `AuthSessionRefreshRequest`. */
export const refreshRequest = z.object({ clientPublicKey });

/** `InternalAccountExportRequest`: an uncompressed key only. */
export const exportRequest = z.object({
  clientPublicKey: z.string().regex(/^04[0-9a-fA-F]{128}$/, 'an uncompressed (130 hex, 04) SEC1 P-256 key'),
});

/** `InternalAccountUpdateRequest`: at least one field. */
export const internalAccountUpdateRequest = z
  .object({ privateEnabled: z.boolean().optional() })
  .refine((body) => body.privateEnabled !== undefined, { message: 'Send at least one update field (privateEnabled).', path: ['privateEnabled'] });

/** Query of the credential and session lists. */
export const accountQuery = z.object({ accountId: internalAccountId });

/** `DelegatedKeyCreateRequest`. */
export const delegatedKeyCreateRequest = z.object({
  cardId: z.string().min(1).max(255),
  internalAccountId: z.string().min(1),
  nickname: z.string().min(1).max(256),
});

/** Query of the delegated-key list: at least one filter. */
export const delegatedKeyQuery = z
  .object({ accountId: z.string().min(1).optional(), fundingSourceId: z.string().min(1).optional() })
  .refine((q) => q.accountId !== undefined || q.fundingSourceId !== undefined, { message: 'Send accountId, fundingSourceId or both.', path: ['accountId'] });
