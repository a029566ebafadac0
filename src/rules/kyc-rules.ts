import { ruleFamily } from './rule-ids.js';

/**
 * Sandbox magic values of onboarding (sandbox-rules.md, "Customers at creation", "Businesses
 * (KYB)"), one table per rule family. "Suffix" is the last three characters of the field. Each
 * table's coverage rule ids are declared below it.
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

/** Rule ids of an individual's `fullName` suffix (recorded at creation, where the suffix decides). */
export const individualNameRules = ruleFamily(
  'customers',
  'customers.individual-name',
  {
    '001': 'Individual fullName ending 001: created PENDING; a complete submission goes to PENDING_MANUAL_REVIEW, an incomplete one RESOLVE_ERRORS',
    '002': 'Individual fullName ending 002: created REJECTED; submissions are 400',
    '003': 'Individual fullName ending 003: created UNVERIFIED; the first complete submission gives RESOLVE_ERRORS with POOR_QUALITY_DOCUMENT',
    other: 'Individual fullName without a magic suffix: created APPROVED',
  },
  individualStatusAtCreation,
);

/** Rule id of business creation (any business is created `kybStatus: UNVERIFIED`). */
export const businessCreationRules = ruleFamily('customers', 'customers.business', {
  'created-unverified': 'Business customer: created kybStatus UNVERIFIED; verification decides by the registrationNumber suffix',
});

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

/** Rule ids of the `registrationNumber` suffix (recorded at verification), and of paperwork skipping. */
export const registrationNumberRules = ruleFamily(
  'customers',
  'customers.registration-number',
  {
    '001': 'Business registrationNumber ending 001: after a complete packet, PENDING_MANUAL_REVIEW',
    '002': 'Business registrationNumber ending 002: REJECTED',
    '003': 'Business registrationNumber ending 003: document and owner collection; after a complete packet IN_PROGRESS, then APPROVED after 30 s',
    other: 'Business registrationNumber without a magic suffix: IN_PROGRESS after a complete packet, then APPROVED after 30 s',
  },
  businessVerificationRule,
);
export const paperworkSkippingRules = ruleFamily('customers', 'customers.paperwork-skipping', {
  resolved: 'Platform with paperworkSkipping: a business (002 or no magic suffix) resolves at verification with no documents or owners asked for',
});

/** Beneficial owners, resolved when their business is verified, by the `personalInfo.lastName` suffix. */
export const ownerStatusAtVerification: Readonly<Record<string, 'PENDING' | 'REJECTED'>> = {
  '001': 'PENDING',
  '002': 'REJECTED',
};
/** Any other last-name suffix. */
export const ownerDefaultStatus = 'APPROVED' as const;

/** Rule ids of a beneficial owner's `lastName` suffix (recorded when the business is verified). */
export const ownerLastNameRules = ruleFamily(
  'customers',
  'customers.owner-last-name',
  {
    '001': 'Beneficial owner lastName ending 001: PENDING (the business goes to manual review)',
    '002': 'Beneficial owner lastName ending 002: REJECTED (the business is REJECTED, APPLICANT_REJECTED on the owner)',
    other: 'Beneficial owner lastName without a magic suffix: APPROVED',
  },
  ownerStatusAtVerification,
);

/** API.md's document rejection reasons. */
export type DocumentRejectionReason = 'LOW_QUALITY' | 'DATA_MISMATCH' | 'EXPIRED' | 'SUSPECTED_FRAUD' | 'UNSUITABLE_DOCUMENT' | 'INCOMPLETE';

/**
 * `422 DOCUMENT_REJECTED` with `details.reason` (API.md: an unusable document photo, and its
 * rejection reasons). Sandbox trigger: the uploaded file's name, without its extension, ends in
 * the suffix (e.g. `passport-422.jpg`); nothing is stored.
 */
export const documentRejectionBySuffix: Readonly<Record<string, { reason: DocumentRejectionReason; message: string }>> = {
  '422': { reason: 'LOW_QUALITY', message: 'The document photo failed quality checks: all four corners must be visible, in focus and in colour.' },
  '423': { reason: 'DATA_MISMATCH', message: 'The document does not match the data on file for its holder (name, birth date or document number).' },
  '424': { reason: 'EXPIRED', message: 'The document has expired; upload one that is currently valid.' },
  '425': { reason: 'SUSPECTED_FRAUD', message: 'The document shows signs of tampering and was refused.' },
  '426': { reason: 'UNSUITABLE_DOCUMENT', message: 'This kind of document cannot prove what it was uploaded for; upload another document type.' },
  '427': { reason: 'INCOMPLETE', message: 'The document is incomplete: a page or side is missing, or part of it is cut off.' },
};

/** Rule ids of the document file-name suffixes (recorded at upload or replacement). */
export const documentRejectionRules = ruleFamily(
  'customers',
  'documents.file-name',
  {
    '422': 'Document file name ending 422 (passport-422.jpg): 422 DOCUMENT_REJECTED, reason LOW_QUALITY',
    '423': 'Document file name ending 423: 422 DOCUMENT_REJECTED, reason DATA_MISMATCH',
    '424': 'Document file name ending 424: 422 DOCUMENT_REJECTED, reason EXPIRED',
    '425': 'Document file name ending 425: 422 DOCUMENT_REJECTED, reason SUSPECTED_FRAUD',
    '426': 'Document file name ending 426: 422 DOCUMENT_REJECTED, reason UNSUITABLE_DOCUMENT',
    '427': 'Document file name ending 427: 422 DOCUMENT_REJECTED, reason INCOMPLETE',
  },
  documentRejectionBySuffix,
);

/** The contact-verification code that confirms a channel (sandbox-rules.md, "Codes and literals"). */
export const CONTACT_VERIFICATION_CODE = '123456';

/** Rule id of the contact-verification code (recorded when it confirms a channel). */
export const contactCodeRules = ruleFamily('customers', 'customers.contact-code', {
  '123456': 'Contact verification confirm (verify-email/confirm, verify-phone/confirm) with 123456: channel VERIFIED',
});

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
