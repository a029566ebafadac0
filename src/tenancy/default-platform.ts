/**
 * The configuration a new sandbox platform starts with: a realistic spread of fiat corridors,
 * the stablecoins and bitcoin, each with limits in the currency's smallest unit.
 */
import type { PlatformConfigData } from './schemas.js';

type FieldName = string;
const counterparty = (...names: FieldName[]) => names.map((name) => ({ name, mandatory: true }));
const both = ['OUTGOING', 'INCOMING'];

/** One row per currency: limits and the provider's required customer fields. */
export const defaultCurrencies: PlatformConfigData['supportedCurrencies'] = [
  { currencyCode: 'USD', minAmount: 100, maxAmount: 10_000_000, requiredCounterpartyFields: counterparty('FULL_NAME'), enabledTransactionTypes: both },
  { currencyCode: 'EUR', minAmount: 100, maxAmount: 10_000_000, requiredCounterpartyFields: counterparty('FULL_NAME', 'BIRTH_DATE', 'NATIONALITY'), providerRequiredCustomerFields: ['BIRTH_DATE', 'NATIONALITY', 'POSTAL_ADDRESS'], providerRequiredCounterpartyCustomerFields: ['FULL_NAME', 'COUNTRY_OF_RESIDENCE'], enabledTransactionTypes: both },
  { currencyCode: 'GBP', minAmount: 100, maxAmount: 8_000_000, requiredCounterpartyFields: counterparty('FULL_NAME', 'BIRTH_DATE'), providerRequiredCustomerFields: ['BIRTH_DATE', 'POSTAL_ADDRESS'], enabledTransactionTypes: both },
  { currencyCode: 'MXN', minAmount: 2_000, maxAmount: 200_000_000, requiredCounterpartyFields: counterparty('FULL_NAME', 'BIRTH_DATE', 'NATIONALITY'), providerRequiredCustomerFields: ['BIRTH_DATE', 'NATIONALITY'], providerRequiredCounterpartyCustomerFields: ['FULL_NAME'], enabledTransactionTypes: both },
  { currencyCode: 'BRL', minAmount: 500, maxAmount: 50_000_000, requiredCounterpartyFields: counterparty('FULL_NAME', 'TAX_ID'), providerRequiredCustomerFields: ['BIRTH_DATE', 'TAX_ID'], providerRequiredCounterpartyCustomerFields: ['FULL_NAME', 'TAX_ID'], enabledTransactionTypes: both },
  { currencyCode: 'INR', minAmount: 10_000, maxAmount: 500_000_000, requiredCounterpartyFields: counterparty('FULL_NAME', 'PURPOSE_OF_PAYMENT'), providerRequiredCustomerFields: ['BIRTH_DATE', 'NATIONALITY', 'POSTAL_ADDRESS'], providerRequiredCounterpartyCustomerFields: ['FULL_NAME', 'PURPOSE_OF_PAYMENT'], enabledTransactionTypes: ['OUTGOING'] },
  { currencyCode: 'NGN', minAmount: 100_000, maxAmount: 5_000_000_000, requiredCounterpartyFields: counterparty('FULL_NAME', 'PHONE_NUMBER'), providerRequiredCustomerFields: ['BIRTH_DATE', 'PHONE_NUMBER'], providerRequiredCounterpartyCustomerFields: ['FULL_NAME'], enabledTransactionTypes: ['OUTGOING'] },
  { currencyCode: 'PHP', minAmount: 5_000, maxAmount: 300_000_000, requiredCounterpartyFields: counterparty('FULL_NAME', 'BIRTH_DATE'), providerRequiredCustomerFields: ['BIRTH_DATE'], providerRequiredCounterpartyCustomerFields: ['FULL_NAME'], enabledTransactionTypes: ['OUTGOING'] },
  { currencyCode: 'USDC', minAmount: 1_000_000, maxAmount: 100_000_000_000, requiredCounterpartyFields: [], enabledTransactionTypes: both },
  { currencyCode: 'USDB', minAmount: 10_000, maxAmount: 100_000_000_000, requiredCounterpartyFields: [], enabledTransactionTypes: both },
  { currencyCode: 'BTC', minAmount: 1_000, maxAmount: 100_000_000, requiredCounterpartyFields: [], enabledTransactionTypes: both },
];

/** The configuration of a fresh platform (ids and timestamps are added by the service). */
export const defaultPlatformConfig: PlatformConfigData = {
  umaDomain: 'sandbox.uma.money',
  proxyUmaSubdomain: 'platform',
  supportedCurrencies: defaultCurrencies,
  embeddedWalletConfig: {
    appName: 'Sandbox Wallet',
    otpLength: 6,
    alphanumeric: false,
    expirationSeconds: 300,
    sendFromEmailAddress: 'noreply@wallet.sandbox.example',
    sendFromEmailSenderName: 'Sandbox Wallet',
    replyToEmailAddress: 'support@wallet.sandbox.example',
    logoUrl: 'https://wallet.sandbox.example/logo.png',
  },
  cardTokenization2faConfig: {
    displayName: 'Sandbox Cards',
    logoUrl: 'https://cards.sandbox.example/logo.png',
    email: {
      fromAddress: 'cards@cards.sandbox.example',
      fromName: 'Sandbox Cards',
      replyToAddress: 'support@cards.sandbox.example',
      subject: 'Your card verification code',
      bodyText: 'Use this code to finish adding your card to your digital wallet.',
    },
  },
  feeConfigs: [
    { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 50, fixedFee: { amount: 25, currency: 'USD' } },
  ],
};
