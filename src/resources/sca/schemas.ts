import * as z from 'zod';

/** The contract's `ScaFactor`. */
export const scaFactor = z.enum(['SMS_OTP', 'TOTP', 'PASSKEY']);
export type ScaFactor = z.infer<typeof scaFactor>;

/** The `customerId` query parameter every `/sca/*` operation requires. */
// No length rule: an empty or unknown id is the contract's 404 (GET and DELETE declare no 400).
export const customerQuery = z.object({ customerId: z.string() });

const opaque = z.record(z.string(), z.unknown());

/** `ScaFactorEnrollRequestOneOf`. */
export const enrollRequest = z.discriminatedUnion('type', [z.object({ type: z.literal('TOTP') }), z.object({ type: z.literal('PASSKEY') })]);

/** `ScaFactorConfirmRequestOneOf`. */
export const confirmRequest = z.discriminatedUnion('type', [
  z.object({ type: z.literal('TOTP'), secret: z.string().min(1).max(256), code: z.string().min(1).max(64) }),
  z.object({ type: z.literal('PASSKEY'), origin: z.string().min(1).max(2048), credential: opaque }),
]);
export type ConfirmRequest = z.infer<typeof confirmRequest>;

/** The proof fields shared by `ScaAuthorization`, `ScaLoginCompleteRequest` and `BeneficiaryTrustConfirmRequest`. */
const proofFields = {
  code: z.string().min(1).max(64).nullish(),
  passkeyAssertion: opaque.nullish(),
  origin: z.string().min(1).max(2048).nullish(),
};

/** A proof as the services take it. */
export interface Proof {
  code?: string | null | undefined;
  passkeyAssertion?: Record<string, unknown> | null | undefined;
  origin?: string | null | undefined;
}

/** `ScaLoginStartRequest`. */
export const loginStartRequest = z.object({ factor: scaFactor });

/** `ScaLoginCompleteRequest`. */
export const loginCompleteRequest = z.object({
  factor: scaFactor,
  endUserIpAddress: z.string().min(1).max(64),
  challengeId: z.string().min(1).max(200).nullish(),
  ...proofFields,
});
export type LoginCompleteRequest = z.infer<typeof loginCompleteRequest>;

/** `RecordSecurityEventRequest`. */
export const recordEventRequest = z.object({ eventType: z.enum(['RESET_PASSWORD_COMPLETED', 'FAILED_LOGIN_ATTEMPT']) });

/** `TwoFactorResetStartRequest`. */
export const resetStartRequest = z.object({ factor: scaFactor });

/** `TwoFactorResetCompleteRequest` (optional body). */
export const resetCompleteRequest = z.object({
  mobile: z
    .object({
      countryCode: z.string().regex(/^\+[1-9]\d{0,3}$/, 'a dialing code such as +49'),
      number: z.string().regex(/^\d{4,14}$/, 'the national number, digits only'),
    })
    .optional(),
});

/** `BeneficiaryTrustConfirmRequest`. */
export const trustConfirmRequest = z.object({ challengeId: z.string().min(1).max(200).nullish(), ...proofFields });
export type TrustConfirmRequest = z.infer<typeof trustConfirmRequest>;

/** `ScaAuthorization`. */
export const authorizationRequest = z.object({ ...proofFields, endUserIpAddress: z.string().max(64).nullish() });
export type AuthorizationRequest = z.infer<typeof authorizationRequest>;
