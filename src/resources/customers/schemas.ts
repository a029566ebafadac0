import * as z from 'zod';
import { isCalendarDate } from '../../core/clock.js';
import { paginationQuery } from '../../core/pagination.js';
import { isCountryCode } from './validation.js';

/** An ISO 3166-1 alpha-2 country code. */
export const country = z.string().refine(isCountryCode, { message: 'an ISO 3166-1 alpha-2 country code such as US or DE' });

/** A real calendar date as `YYYY-MM-DD`. */
export const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date in the form YYYY-MM-DD')
  .refine(isCalendarDate, 'a real calendar date');

const email = z.email('an email address').max(255);
const phoneNumber = z.string().regex(/^\+[1-9]\d{1,14}$/, 'an E.164 phone number such as +14155551234');

/** The contract's `Address`. */
export const address = z.object({
  line1: z.string().min(1).max(255),
  line2: z.string().max(255).optional(),
  city: z.string().min(1).max(255).optional(),
  state: z.string().min(1).max(255).optional(),
  postalCode: z.string().min(1).max(32),
  country,
});

/** `EndUserTermsConsentRequest`. */
export const endUserTermsConsent = z.object({
  acceptedAt: z.iso.datetime({ offset: true, message: 'an ISO 8601 date-time' }),
  ipAddress: z.union([z.ipv4(), z.ipv6()], { error: 'an IPv4 or IPv6 address' }),
  termsVersion: z.string().min(1).max(64),
  acceptanceMethod: z.enum(['CHECKBOX', 'CLICK_TO_ACCEPT']),
});

const individualSourceOfFunds = z.enum([
  'SALARY', 'SELF_EMPLOYMENT_INCOME', 'INVESTMENT_INCOME', 'PENSION', 'RENTAL_INCOME', 'GIFT', 'INHERITANCE', 'LOAN', 'SAVINGS', 'SALE_OF_ASSETS', 'OTHER',
]);
const sourceOfWealth = z.enum(['SALARY', 'BUSINESS_INCOME', 'INVESTMENTS', 'INHERITANCE', 'PROPERTY_SALE', 'GIFT', 'RETIREMENT', 'SAVINGS', 'OTHER']);
const purposeOfAccount = z.enum([
  'CONTRACTOR_PAYOUTS', 'CREATOR_PAYOUTS', 'EMPLOYEE_PAYOUTS', 'MARKETPLACE_SELLER_PAYOUTS', 'SUPPLIER_PAYMENTS', 'CROSS_BORDER_B2B', 'AR_AUTOMATION',
  'AP_AUTOMATION', 'EMBEDDED_PAYMENTS', 'PLATFORM_FEE_COLLECTION', 'P2P_TRANSFERS', 'CHARITABLE_DONATIONS', 'OTHER',
]);
const txCount = z.enum(['COUNT_UNDER_10', 'COUNT_10_TO_100', 'COUNT_100_TO_500', 'COUNT_500_TO_1000', 'COUNT_OVER_1000']);
const txVolume = z.enum(['VOLUME_UNDER_10K', 'VOLUME_10K_TO_100K', 'VOLUME_100K_TO_1M', 'VOLUME_1M_TO_10M', 'VOLUME_OVER_10M']);
const description = z.string().min(1).max(500);

/** Fields common to both customer types on create and update. */
const common = {
  currencies: z.array(z.string().regex(/^[A-Z]{3,4}$/, 'a currency code such as USD')).max(50).optional(),
  email: email.optional(),
  phoneNumber: phoneNumber.optional(),
  umaAddress: z.string().min(1).max(255).optional(),
  endUserTermsConsent: endUserTermsConsent.optional(),
};

/** `IndividualCustomerFields` + `CustomerEdd` (format rules; completeness is checked at verification). */
const individualFields = {
  fullName: z.string().trim().min(1).max(255).optional(),
  birthDate: date.optional(),
  nationality: country.optional(),
  address: address.optional(),
  idType: z.enum(['SSN', 'ITIN'], { error: 'SSN or ITIN (the only identifier types accepted for individuals)' }).optional(),
  identifier: z.string().min(1).max(64).optional(),
  countryOfIssuance: country.optional(),
  sourceOfFundsCategories: z.array(individualSourceOfFunds).max(20).optional(),
  sourceOfFundsOtherDescription: description.optional(),
  sourceOfWealthCategories: z.array(sourceOfWealth).max(20).optional(),
  sourceOfWealthOtherDescription: description.optional(),
  purposeOfAccount: purposeOfAccount.optional(),
  purposeOfAccountOtherDescription: description.optional(),
  expectedMonthlyTransactionCount: txCount.optional(),
  expectedMonthlyTransactionVolume: txVolume.optional(),
  annualIncomeRange: z.enum(['UNDER_50K', 'RANGE_50K_100K', 'RANGE_100K_250K', 'RANGE_250K_1M', 'OVER_1M']).optional(),
  netWorthRange: z.enum(['UNDER_100K', 'RANGE_100K_500K', 'RANGE_500K_1M', 'RANGE_1M_5M', 'RANGE_5M_25M', 'OVER_25M']).optional(),
  pepStatus: z.enum(['NONE', 'DOMESTIC', 'FOREIGN', 'HIO', 'FAMILY_OR_ASSOCIATE']).optional(),
};

/** `BusinessInfoUpdate`: every field optional (create requires four of them). */
export const businessInfoUpdate = z.object({
  legalName: z.string().trim().min(1).max(255).optional(),
  doingBusinessAs: z.string().min(1).max(255).optional(),
  country: country.optional(),
  registrationNumber: z.string().min(1).max(64).optional(),
  incorporatedOn: date.optional(),
  entityType: z
    .enum(['SOLE_PROPRIETORSHIP', 'PARTNERSHIP', 'LLC', 'CORPORATION', 'S_CORPORATION', 'NON_PROFIT', 'PUBLICLY_LISTED_COMPANY', 'TRUST', 'PRIVATE_FOUNDATION', 'CHARITY', 'OTHER'])
    .optional(),
  taxId: z.string().trim().min(1).max(64).optional(),
  countriesOfOperation: z.array(country).max(250).optional(),
  businessType: z
    .enum([
      'AGRICULTURE_FORESTRY_FISHING_AND_HUNTING', 'MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION', 'UTILITIES', 'CONSTRUCTION', 'MANUFACTURING',
      'WHOLESALE_TRADE', 'RETAIL_TRADE', 'TRANSPORTATION_AND_WAREHOUSING', 'INFORMATION', 'FINANCE_AND_INSURANCE', 'REAL_ESTATE_AND_RENTAL_AND_LEASING',
      'PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES', 'MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES',
      'ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES', 'EDUCATIONAL_SERVICES', 'HEALTH_CARE_AND_SOCIAL_ASSISTANCE',
      'ARTS_ENTERTAINMENT_AND_RECREATION', 'ACCOMMODATION_AND_FOOD_SERVICES', 'OTHER_SERVICES', 'PUBLIC_ADMINISTRATION',
    ])
    .optional(),
  purposeOfAccount: purposeOfAccount.optional(),
  sourceOfFunds: z.string().min(1).max(1000).optional(),
  expectedMonthlyTransactionCount: txCount.optional(),
  expectedMonthlyTransactionVolume: txVolume.optional(),
  expectedRecipientJurisdictions: z.array(country).max(250).optional(),
  naicsCode: z.string().regex(/^\d{2,6}$/, '2 to 6 digits').optional(),
  sourceOfFundsCategories: z.array(z.enum(['OPERATING_REVENUE', 'INVESTMENT_INCOME', 'LOANS', 'VENTURE_CAPITAL', 'PERSONAL_SAVINGS', 'DONATIONS', 'OTHER'])).max(20).optional(),
  sourceOfFundsOtherDescription: description.optional(),
  purposeOfAccountOtherDescription: description.optional(),
  expectedCounterpartyCountries: z.array(country).max(250).optional(),
  primaryContactFirstName: z.string().min(1).max(250).optional(),
  primaryContactLastName: z.string().min(1).max(250).optional(),
});

/** `BusinessInfo` on create: `legalName`, `country`, `taxId`, `incorporatedOn` required. */
const businessInfoCreate = businessInfoUpdate.extend({
  legalName: z.string().trim().min(1).max(255),
  country,
  taxId: z.string().trim().min(1).max(64),
  incorporatedOn: date,
});

const createCommon = {
  platformCustomerId: z.string().min(1).max(255).optional(),
  region: country.optional(),
  ...common,
};

/**
 * `KycStatus` / `KybStatus`: the contract lets a request carry them; they are validated and then
 * ignored, because the sandbox rules decide the status (sandbox-rules.md "Rulings").
 */
const verificationStatus = z.enum(['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD']);

/** `CustomerCreateRequestOneOf`, discriminated by `customerType`. */
export const customerCreate = z.discriminatedUnion('customerType', [
  z.object({ customerType: z.literal('INDIVIDUAL'), ...createCommon, kycStatus: verificationStatus.optional(), ...individualFields }),
  z.object({ customerType: z.literal('BUSINESS'), ...createCommon, kybStatus: verificationStatus.optional(), address: address.optional(), businessInfo: businessInfoCreate }),
], { error: 'customerType must be INDIVIDUAL or BUSINESS' });

/** `CustomerUpdateRequestOneOf`: `customerType` required; other fields replace the stored ones (businessInfo merges). */
export const customerUpdate = z.discriminatedUnion('customerType', [
  z.object({ customerType: z.literal('INDIVIDUAL'), ...common, kycStatus: verificationStatus.optional(), ...individualFields }),
  z.object({ customerType: z.literal('BUSINESS'), ...common, kybStatus: verificationStatus.optional(), address: address.optional(), businessInfo: businessInfoUpdate.optional() }),
], { error: 'customerType must be INDIVIDUAL or BUSINESS' });

export type CustomerCreate = z.infer<typeof customerCreate>;
export type CustomerUpdate = z.infer<typeof customerUpdate>;

const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

/** Query of `GET /customers`. */
export const customerListQuery = z.object({
  platformCustomerId: z.string().min(1).optional(),
  customerType: z.enum(['INDIVIDUAL', 'BUSINESS']).optional(),
  createdAfter: z.iso.datetime({ offset: true }).optional(),
  createdBefore: z.iso.datetime({ offset: true }).optional(),
  updatedAfter: z.iso.datetime({ offset: true }).optional(),
  updatedBefore: z.iso.datetime({ offset: true }).optional(),
  region: z.string().min(1).optional(),
  currency: z.string().min(1).optional(),
  umaAddress: z.string().min(1).optional(),
  isIncludingDeleted: booleanQuery.optional(),
  ...paginationQuery,
});

export type CustomerListQuery = z.infer<typeof customerListQuery>;

/** `ContactVerificationConfirmRequest`. */
export const contactConfirm = z.object({ code: z.string().min(1).max(32) });
