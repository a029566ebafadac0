import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';
import { country, date } from '../customers/index.js';



const address = z.object({
  line1: z.string().min(1).max(255),
  line2: z.string().max(255).optional(),
  city: z.string().min(1).max(255).optional(),
  state: z.string().min(1).max(255).optional(),
  postalCode: z.string().min(1).max(32),
  country,
});

const role = z.enum(['UBO', 'DIRECTOR', 'COMPANY_OFFICER', 'CONTROL_PERSON', 'TRUSTEE', 'GENERAL_PARTNER']);

const personalInfoFields = {
  firstName: z.string().trim().min(1).max(255),
  middleName: z.string().trim().min(1).max(255).optional(),
  lastName: z.string().trim().min(1).max(255),
  birthDate: date,
  nationality: country,
  email: z.email('an email address').max(255).optional(),
  phoneNumber: z.string().regex(/^\+[1-9]\d{1,14}$/, 'an E.164 phone number such as +14155551234').optional(),
  address,
  idType: z.enum(['SSN', 'ITIN', 'EIN', 'NON_US_TAX_ID']),
  identifier: z.string().trim().min(1).max(64),
  countryOfIssuance: country.optional(),
};

/** `BeneficialOwnerCreateRequest`. */
export const ownerCreate = z.object({
  customerId: z.string().min(1),
  roles: z.array(role).min(1).max(6),
  ownershipPercentage: z.number().int().min(0).max(100),
  personalInfo: z.object(personalInfoFields),
});

/** `BeneficialOwnerUpdateRequest`: personalInfo merges field by field. */
export const ownerUpdate = z.object({
  roles: z.array(role).min(1).max(6).optional(),
  ownershipPercentage: z.number().int().min(0).max(100).optional(),
  personalInfo: z.object(personalInfoFields).partial().optional(),
});

export type OwnerCreate = z.infer<typeof ownerCreate>;
export type OwnerUpdate = z.infer<typeof ownerUpdate>;

/** Query of `GET /beneficial-owners`. */
export const ownerListQuery = z.object({ customerId: z.string().min(1), ...paginationQuery });

export const documentTypes = [
  'PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID', 'PROOF_OF_ADDRESS', 'BANK_STATEMENT', 'TAX_RETURN', 'CERTIFICATE_OF_INCORPORATION',
  'ARTICLES_OF_INCORPORATION', 'ARTICLES_OF_ASSOCIATION', 'STATE_REGISTRY_EXCERPT', 'GOOD_STANDING_CERTIFICATE', 'INFORMATION_STATEMENT',
  'INCUMBENCY_CERTIFICATE', 'BUSINESS_LICENSE', 'SHAREHOLDER_REGISTER', 'POWER_OF_ATTORNEY', 'UTILITY_BILL', 'ELECTRICITY_BILL',
  'RENT_OR_LEASE_AGREEMENT', 'DIRECTOR_REGISTRY', 'TRUST_AGREEMENT', 'STATE_COMPANY_REGISTRY', 'PARTNERSHIP_CONTROL_AGREEMENT',
  'PARTNERSHIP_AGREEMENT', 'SELFIE', 'OTHER',
] as const;
export type DocumentType = (typeof documentTypes)[number];

/** The text fields of `BaseDocumentRequest` (the file is checked by the service). */
export const documentFields = z.object({
  documentType: z.enum(documentTypes),
  country,
  side: z.enum(['FRONT', 'BACK']).optional(),
  documentNumber: z.string().trim().min(1).max(64).optional(),
  issuingAuthority: z.string().trim().min(1).max(255).optional(),
});

/** `DocumentUploadRequest`: the base fields plus `documentHolder`. */
export const documentUploadFields = documentFields.extend({ documentHolder: z.string().min(1) });

export type DocumentFields = z.infer<typeof documentFields>;

/** Query of `GET /documents`. */
export const documentListQuery = z.object({ documentHolder: z.string().min(1).optional(), ...paginationQuery });

/** `VerificationRequest`. */
export const verificationCreate = z.object({ customerId: z.string().min(1) });

/** Query of `GET /verifications`. */
export const verificationListQuery = z.object({
  customerId: z.string().min(1).optional(),
  verificationStatus: z.enum(['RESOLVE_ERRORS', 'PENDING_MANUAL_REVIEW', 'IN_PROGRESS', 'APPROVED', 'REJECTED', 'READY_FOR_VERIFICATION']).optional(),
  ...paginationQuery,
});

/** `KycLinkCreateRequest`. */
export const kycLinkCreate = z.object({ redirectUri: z.url({ protocol: /^https?$/ }).max(2048).optional() });
