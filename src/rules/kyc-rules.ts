/**
 * Sandbox magic values of onboarding (sandbox-rules.md, "Customers at creation", "Businesses
 * (KYB)"), one table per rule family. "Suffix" is the last three characters of the field.
 */

/** Suffix of the last three characters of a value ('' when absent). */
export function suffixOf(value: string | undefined): string {
  return value ? value.slice(-3) : '';
}

/** Individuals on an unregulated platform: `kycStatus` at creation by the `fullName` suffix. */
export const individualStatusAtCreation: Readonly<Record<string, 'PENDING' | 'REJECTED' | 'UNVERIFIED'>> = {
  '001': 'PENDING',
  '002': 'REJECTED',
  '003': 'UNVERIFIED',
};
/** Any other `fullName` suffix. */
export const individualDefaultStatus = 'APPROVED' as const;

/**
 * What `POST /verifications` does for an individual, by the `fullName` suffix: `001` validates
 * and goes to manual review when complete; `003` validates and, when complete, asks for a
 * better identity document (`POOR_QUALITY_DOCUMENT`).
 */
export const individualVerificationRule: Readonly<Record<string, 'MANUAL_REVIEW' | 'POOR_QUALITY_DOCUMENT'>> = {
  '001': 'MANUAL_REVIEW',
  '003': 'POOR_QUALITY_DOCUMENT',
};

/** Businesses: the outcome at verification by the `businessInfo.registrationNumber` suffix. */
export const businessVerificationRule: Readonly<Record<string, 'VALIDATE' | 'REJECT'>> = {
  '001': 'VALIDATE',
  '002': 'REJECT',
  '003': 'VALIDATE',
};
/**
 * Any other registration-number suffix: approved after a complete submission (or at once with
 * paperwork skipping).
 */
export const businessDefaultRule = 'APPROVE' as const;

/** Beneficial owners, resolved when their business is verified, by the `personalInfo.lastName` suffix. */
export const ownerStatusAtVerification: Readonly<Record<string, 'PENDING' | 'REJECTED'>> = {
  '001': 'PENDING',
  '002': 'REJECTED',
};
/** Any other last-name suffix. */
export const ownerDefaultStatus = 'APPROVED' as const;

/**
 * `422 DOCUMENT_REJECTED` (API.md: a photo failing quality checks). Sandbox trigger: the
 * uploaded file's name, without its extension, ends in `422` (e.g. `passport-422.jpg`).
 */
export const documentRejectionSuffix = '422';
/** The rejection reason reported with it (API.md's document rejection reasons). */
export const documentRejectionReason = 'LOW_QUALITY' as const;

/** The contact-verification code that confirms a channel (sandbox-rules.md, "Codes and literals"). */
export const CONTACT_VERIFICATION_CODE = '123456';

/** The End User Terms version `GET /customers/end-user-terms` lists; consent must name it. */
export const END_USER_TERMS = { version: '2025-10-13', url: 'https://sandbox.service.example/legal/end-user-terms/2025-10-13' } as const;

/**
 * How long the provider's automatic checks take after a complete submission that no rule
 * sends to manual review: the verification is `IN_PROGRESS` until then, then `APPROVED`.
 */
export const AUTOMATIC_REVIEW_SECONDS = 30;

/** How long a hosted KYC link stays usable. */
export const KYC_LINK_TTL_SECONDS = 15 * 60;
/** How long a hosted KYC session (opened by using a link) stays usable. */
export const KYC_SESSION_TTL_SECONDS = 60 * 60;

/** Bulk CSV customer import: rows processed per tick, and the tick on the sandbox clock. */
export const BULK_IMPORT_ROWS_PER_TICK = 50;
export const BULK_IMPORT_TICK_SECONDS = 1;
