import * as z from 'zod';

const customerInfoFieldName = z.enum([
  'FULL_NAME', 'BIRTH_DATE', 'NATIONALITY', 'PHONE_NUMBER', 'EMAIL', 'POSTAL_ADDRESS', 'TAX_ID',
  'REGISTRATION_NUMBER', 'USER_TYPE', 'COUNTRY_OF_RESIDENCE', 'ACCOUNT_IDENTIFIER', 'FI_LEGAL_ENTITY_NAME',
  'FI_ADDRESS', 'PURPOSE_OF_PAYMENT', 'ULTIMATE_INSTITUTION_COUNTRY', 'IDENTIFIER', 'BUSINESS_TYPE',
  'COMPANY_LEGAL_NAME', 'ID_TYPE', 'ID_NUMBER',
]);

const smallestUnits = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** `PlatformCurrencyConfig` as a client may send it (read-only provider fields are ignored). */
export const platformCurrencyConfig = z.object({
  currencyCode: z.string().regex(/^[A-Z]{3,4}$/, 'a currency code such as USD or USDC'),
  minAmount: smallestUnits,
  maxAmount: smallestUnits,
  requiredCounterpartyFields: z.array(z.object({ name: customerInfoFieldName, mandatory: z.boolean() })),
  enabledTransactionTypes: z.array(z.enum(['INCOMING', 'OUTGOING'])),
});

const email = z.email().max(255);
const httpsUrl = z.url({ protocol: /^https$/ }).max(512);

/** `EmbeddedWalletConfig`; every field optional on update (omitted fields stay as they are). */
export const embeddedWalletConfig = z.object({
  appName: z.string().max(255).optional(),
  otpLength: z.number().int().min(4).max(12).optional(),
  alphanumeric: z.boolean().optional(),
  expirationSeconds: z.number().int().min(1).max(86_400).optional(),
  sendFromEmailAddress: email.optional(),
  sendFromEmailSenderName: z.string().max(255).optional(),
  replyToEmailAddress: email.optional(),
  logoUrl: z.url().max(512).optional(),
});

/** `CardTokenization2FAConfig`, merged field by field on update. */
export const cardTokenization2faConfig = z.object({
  displayName: z.string().max(255).optional(),
  logoUrl: httpsUrl.optional(),
  email: z
    .object({
      fromAddress: email.optional(),
      fromName: z.string().max(255).optional(),
      replyToAddress: email.optional(),
      subject: z.string().max(255).optional(),
      bodyText: z.string().max(2000).optional(),
    })
    .optional(),
  sms: z
    .object({
      templateSid: z.string().max(64).optional(),
      bodyText: z.string().max(480).optional(),
    })
    .optional(),
});

/** `FeeConfig`: merged by `(feeType, sourceCurrency)`; zero variable and fixed fees deactivate it. */
export const feeConfig = z.object({
  feeType: z.enum(['CROSS_CURRENCY_TRANSACTION']),
  // Any currency code is well-formed; the service answers 501 for one other than USD (the contract's FeeConfig).
  sourceCurrency: z.string().min(1).max(16),
  variableFeeBps: z.number().int().min(0).max(10_000),
  fixedFee: z.object({ amount: smallestUnits, currency: z.string().regex(/^[A-Z]{3,4}$/) }),
});

/** `PlatformConfigUpdateRequest`. */
export const platformConfigUpdate = z.object({
  umaDomain: z
    .string()
    .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'a domain name such as mycompany.com')
    .optional(),
  webhookEndpoint: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  supportedCurrencies: z.array(platformCurrencyConfig).min(1).optional(),
  embeddedWalletConfig: embeddedWalletConfig.optional(),
  cardTokenization2faConfig: cardTokenization2faConfig.optional(),
  feeConfigs: z.array(feeConfig).optional(),
});

export type PlatformConfigUpdate = z.infer<typeof platformConfigUpdate>;

/** The stored configuration (the response adds id, regulation flag and timestamps). */
export interface PlatformConfigData {
  umaDomain: string;
  proxyUmaSubdomain: string;
  webhookEndpoint?: string;
  supportedCurrencies: {
    currencyCode: string;
    minAmount: number;
    maxAmount: number;
    requiredCounterpartyFields: { name: string; mandatory: boolean }[];
    providerRequiredCustomerFields?: string[];
    providerRequiredCounterpartyCustomerFields?: string[];
    enabledTransactionTypes: string[];
  }[];
  embeddedWalletConfig?: Record<string, unknown>;
  cardTokenization2faConfig?: Record<string, unknown> & { email?: Record<string, unknown>; sms?: Record<string, unknown> };
  feeConfigs: {
    feeType: string;
    sourceCurrency: string;
    variableFeeBps: number;
    fixedFee: { amount: number; currency: string };
  }[];
}
