/**
 * The payout corridors of API.md ("Currencies and rails"): which countries the service pays
 * out to, on which rails, and the receiving institutions (banks and mobile-money wallets) a
 * `bankName` or `provider` may name. One table, two uses: external-account creation checks
 * corridors and wallet names against it, and `GET /discoveries` lists its institutions.
 */

/** A rail as the contract's `PaymentRail` enum names it. */
export type Rail =
  | 'SEPA' | 'SEPA_INSTANT' | 'SWIFT' | 'BANK_TRANSFER' | 'MOBILE_MONEY' | 'PIX' | 'SPEI' | 'UPI' | 'NEFT' | 'RTGS'
  | 'PAYNOW' | 'FAST' | 'FASTER_PAYMENTS' | 'ACH' | 'WIRE' | 'RTP' | 'FEDNOW';

/** A receiving institution: the `bankName` to pass on creation, and the rail it is reached on. */
export interface Institution {
  bankName: string;
  displayName: string;
  rail: 'BANK_TRANSFER' | 'MOBILE_MONEY';
  /** China: consumer wallets pay individuals only, bank transfer is business-to-business only. */
  beneficiaryType?: 'INDIVIDUAL' | 'BUSINESS';
}

/** One destination country of the rails table. */
export interface Corridor {
  country: string;
  /** The local currency its institutions are paid in. */
  currency: string;
  /** Local rails (SWIFT is listed separately by `swiftReachable`). */
  rails: readonly Rail[];
  institutions: readonly Institution[];
}

const bank = (bankName: string, displayName = bankName, beneficiaryType?: 'BUSINESS'): Institution =>
  beneficiaryType ? { bankName, displayName, rail: 'BANK_TRANSFER', beneficiaryType } : { bankName, displayName, rail: 'BANK_TRANSFER' };
const wallet = (bankName: string, displayName = bankName, beneficiaryType?: 'INDIVIDUAL'): Institution =>
  beneficiaryType ? { bankName, displayName, rail: 'MOBILE_MONEY', beneficiaryType } : { bankName, displayName, rail: 'MOBILE_MONEY' };

const sepa = (country: string, currency: string): Corridor => ({ country, currency, rails: ['SEPA', 'SEPA_INSTANT'], institutions: [] });

/** API.md's rails table, row by row (63 countries). */
export const corridors: readonly Corridor[] = [
  // AT BE BG CY CZ DK EE FI FR DE GR HU IS IE IT LV LI LT LU MT NL NO PL PT RO SK ES SE CH: SEPA, SEPA Instant, SWIFT
  ...(
    [
      ['AT', 'EUR'], ['BE', 'EUR'], ['BG', 'BGN'], ['CY', 'EUR'], ['CZ', 'CZK'], ['DK', 'DKK'], ['EE', 'EUR'], ['FI', 'EUR'],
      ['FR', 'EUR'], ['DE', 'EUR'], ['GR', 'EUR'], ['HU', 'HUF'], ['IS', 'ISK'], ['IE', 'EUR'], ['IT', 'EUR'], ['LV', 'EUR'],
      ['LI', 'CHF'], ['LT', 'EUR'], ['LU', 'EUR'], ['MT', 'EUR'], ['NL', 'EUR'], ['NO', 'NOK'], ['PL', 'PLN'], ['PT', 'EUR'],
      ['RO', 'RON'], ['SK', 'EUR'], ['ES', 'EUR'], ['SE', 'SEK'], ['CH', 'CHF'],
    ] as const
  ).map(([country, currency]) => sepa(country, currency)),
  // HR SI: SEPA, SEPA Instant (no SWIFT)
  sepa('HR', 'EUR'),
  sepa('SI', 'EUR'),
  // BD CO EG GH PK: Bank Transfer, Mobile Money, SWIFT
  { country: 'BD', currency: 'BDT', rails: ['BANK_TRANSFER', 'MOBILE_MONEY'], institutions: [bank('Sonali Bank'), bank('BRAC Bank'), bank('Dutch-Bangla Bank'), wallet('bKash'), wallet('Nagad'), wallet('Rocket', 'Dutch-Bangla Rocket')] },
  { country: 'CO', currency: 'COP', rails: ['BANK_TRANSFER', 'MOBILE_MONEY'], institutions: [bank('Bancolombia'), bank('Banco de Bogota', 'Banco de Bogotá'), bank('BBVA Colombia'), wallet('Nequi'), wallet('Daviplata')] },
  { country: 'EG', currency: 'EGP', rails: ['BANK_TRANSFER', 'MOBILE_MONEY'], institutions: [bank('National Bank of Egypt'), bank('Banque Misr'), bank('CIB', 'Commercial International Bank'), wallet('Vodafone Cash'), wallet('Orange Cash'), wallet('Etisalat Cash', 'e& money')] },
  { country: 'GH', currency: 'GHS', rails: ['BANK_TRANSFER', 'MOBILE_MONEY'], institutions: [bank('GCB Bank'), bank('Ecobank Ghana'), bank('Stanbic Bank Ghana'), wallet('MTN Mobile Money', 'MTN MoMo'), wallet('Telecel Cash'), wallet('AirtelTigo Money', 'AT Money')] },
  { country: 'PK', currency: 'PKR', rails: ['BANK_TRANSFER', 'MOBILE_MONEY'], institutions: [bank('HBL', 'Habib Bank Limited'), bank('Meezan Bank'), bank('UBL', 'United Bank Limited'), wallet('JazzCash'), wallet('Easypaisa')] },
  // BJ CM HT CI KE MW RW SN TZ UG ZM: Mobile Money, SWIFT
  { country: 'BJ', currency: 'XOF', rails: ['MOBILE_MONEY'], institutions: [wallet('MTN MoMo Benin'), wallet('Moov Money Benin')] },
  { country: 'CM', currency: 'XAF', rails: ['MOBILE_MONEY'], institutions: [wallet('MTN MoMo Cameroon'), wallet('Orange Money Cameroon')] },
  { country: 'HT', currency: 'HTG', rails: ['MOBILE_MONEY'], institutions: [wallet('MonCash', 'Digicel MonCash')] },
  { country: 'CI', currency: 'XOF', rails: ['MOBILE_MONEY'], institutions: [wallet('Orange Money CI', "Orange Money Côte d'Ivoire"), wallet('MTN MoMo CI', "MTN MoMo Côte d'Ivoire"), wallet('Moov Money CI'), wallet('Wave CI', "Wave Côte d'Ivoire")] },
  { country: 'KE', currency: 'KES', rails: ['MOBILE_MONEY'], institutions: [wallet('M-Pesa', 'Safaricom M-Pesa'), wallet('Airtel Money Kenya')] },
  { country: 'MW', currency: 'MWK', rails: ['MOBILE_MONEY'], institutions: [wallet('Airtel Money Malawi'), wallet('TNM Mpamba')] },
  { country: 'RW', currency: 'RWF', rails: ['MOBILE_MONEY'], institutions: [wallet('MTN MoMo Rwanda'), wallet('Airtel Money Rwanda')] },
  { country: 'SN', currency: 'XOF', rails: ['MOBILE_MONEY'], institutions: [wallet('Orange Money Senegal'), wallet('Wave Senegal'), wallet('Free Money')] },
  { country: 'TZ', currency: 'TZS', rails: ['MOBILE_MONEY'], institutions: [wallet('M-Pesa Tanzania', 'Vodacom M-Pesa'), wallet('Airtel Money Tanzania'), wallet('Mixx by Yas', 'Mixx by Yas (Tigo Pesa)'), wallet('HaloPesa')] },
  { country: 'UG', currency: 'UGX', rails: ['MOBILE_MONEY'], institutions: [wallet('MTN MoMo Uganda'), wallet('Airtel Money Uganda')] },
  { country: 'ZM', currency: 'ZMW', rails: ['MOBILE_MONEY'], institutions: [wallet('MTN MoMo Zambia'), wallet('Airtel Money Zambia'), wallet('Zamtel Kwacha')] },
  // ID IL MY NG PH ZA TH AE VN: Bank Transfer, SWIFT
  { country: 'ID', currency: 'IDR', rails: ['BANK_TRANSFER'], institutions: [bank('BCA', 'Bank Central Asia'), bank('Bank Mandiri'), bank('BRI', 'Bank Rakyat Indonesia'), bank('BNI', 'Bank Negara Indonesia')] },
  { country: 'IL', currency: 'ILS', rails: ['BANK_TRANSFER'], institutions: [bank('Bank Hapoalim'), bank('Bank Leumi'), bank('Israel Discount Bank')] },
  { country: 'MY', currency: 'MYR', rails: ['BANK_TRANSFER'], institutions: [bank('Maybank'), bank('CIMB Bank'), bank('Public Bank')] },
  { country: 'NG', currency: 'NGN', rails: ['BANK_TRANSFER'], institutions: [bank('Access Bank'), bank('GTBank', 'Guaranty Trust Bank'), bank('Zenith Bank'), bank('First Bank of Nigeria'), bank('UBA', 'United Bank for Africa')] },
  { country: 'PH', currency: 'PHP', rails: ['BANK_TRANSFER'], institutions: [bank('BDO Unibank'), bank('BPI', 'Bank of the Philippine Islands'), bank('Metrobank'), bank('Landbank', 'Land Bank of the Philippines')] },
  { country: 'ZA', currency: 'ZAR', rails: ['BANK_TRANSFER'], institutions: [bank('Standard Bank'), bank('FNB', 'First National Bank'), bank('Absa'), bank('Nedbank'), bank('Capitec')] },
  { country: 'TH', currency: 'THB', rails: ['BANK_TRANSFER'], institutions: [bank('Bangkok Bank'), bank('Kasikornbank'), bank('SCB', 'Siam Commercial Bank')] },
  { country: 'AE', currency: 'AED', rails: ['BANK_TRANSFER'], institutions: [bank('Emirates NBD'), bank('First Abu Dhabi Bank'), bank('ADCB', 'Abu Dhabi Commercial Bank')] },
  { country: 'VN', currency: 'VND', rails: ['BANK_TRANSFER'], institutions: [bank('Vietcombank'), bank('Techcombank'), bank('BIDV')] },
  // BR: PIX, SWIFT; MX: SPEI, SWIFT; IN: UPI, NEFT, RTGS, SWIFT
  { country: 'BR', currency: 'BRL', rails: ['PIX'], institutions: [] },
  { country: 'MX', currency: 'MXN', rails: ['SPEI'], institutions: [] },
  { country: 'IN', currency: 'INR', rails: ['UPI', 'NEFT', 'RTGS'], institutions: [bank('SBI', 'State Bank of India'), bank('HDFC Bank'), bank('ICICI Bank')] },
  // SG: PayNow, FAST, Bank Transfer, SWIFT; GB: Faster Payments, SWIFT; US: ACH, Wire Transfer, RTP, FedNow, SWIFT
  { country: 'SG', currency: 'SGD', rails: ['PAYNOW', 'FAST', 'BANK_TRANSFER'], institutions: [bank('DBS', 'DBS Bank'), bank('OCBC', 'OCBC Bank'), bank('UOB', 'United Overseas Bank')] },
  { country: 'GB', currency: 'GBP', rails: ['FASTER_PAYMENTS'], institutions: [] },
  { country: 'US', currency: 'USD', rails: ['ACH', 'WIRE', 'RTP', 'FEDNOW'], institutions: [] },
  // CN: two consumer wallet rails (individuals), Bank Transfer (businesses only), SWIFT
  {
    country: 'CN',
    currency: 'CNY',
    rails: ['MOBILE_MONEY', 'BANK_TRANSFER'],
    institutions: [
      wallet('Alipay', 'Alipay', 'INDIVIDUAL'),
      wallet('WeChat Pay', 'WeChat Pay', 'INDIVIDUAL'),
      bank('Bank of China', 'Bank of China', 'BUSINESS'),
      bank('ICBC', 'Industrial and Commercial Bank of China', 'BUSINESS'),
      bank('China Construction Bank', 'China Construction Bank', 'BUSINESS'),
    ],
  },
];

/** Announced but unavailable corridors (API.md): no account of any kind pays out there yet. */
export const announcedUnavailable: ReadonlySet<string> = new Set(['CA', 'HK', 'KR']);

/** Countries served by SEPA only: SWIFT does not reach them (API.md). */
export const swiftExcluded: ReadonlySet<string> = new Set(['HR', 'SI']);

/** Sanctioned or prohibited destinations SWIFT cannot reach (comprehensively sanctioned jurisdictions). */
export const sanctioned: ReadonlySet<string> = new Set(['CU', 'IR', 'KP', 'SY']);

/** The currencies of the SWIFT fallback (API.md: "SWIFT is the international-wire fallback in USD and EUR"). */
export const swiftCurrencies: readonly string[] = ['USD', 'EUR'];

const byCountry = new Map(corridors.map((corridor) => [corridor.country, corridor]));

/** The corridor of a country, or undefined when the table has no local rail there. */
export function corridorOf(country: string): Corridor | undefined {
  return byCountry.get(country);
}

/** Why SWIFT cannot reach a country, or undefined when it can. */
export function swiftBlockReason(country: string): string | undefined {
  if (announcedUnavailable.has(country)) return `${country} is an announced corridor that is not available yet.`;
  if (swiftExcluded.has(country)) return `${country} is served by SEPA only; SWIFT does not reach it. Create an EUR_ACCOUNT with the IBAN instead.`;
  if (sanctioned.has(country)) return `SWIFT cannot reach ${country}: it is a sanctioned or prohibited destination.`;
  return undefined;
}

/** The institution of a country named `name` (compared without case), if any. */
export function institutionOf(country: string, name: string): Institution | undefined {
  const wanted = name.trim().toLowerCase();
  return corridorOf(country)?.institutions.find(
    (institution) => institution.bankName.toLowerCase() === wanted || institution.displayName.toLowerCase() === wanted,
  );
}

/** One row of `GET /discoveries`. */
export interface DiscoveryRow {
  bankName: string;
  displayName: string;
  country: string;
  currency: string;
}

/** The receiving institutions of the table, optionally filtered by country and currency. */
export function discoveries(filter: { country?: string; currency?: string } = {}): DiscoveryRow[] {
  return corridors
    .filter((corridor) => (filter.country === undefined || corridor.country === filter.country) && (filter.currency === undefined || corridor.currency === filter.currency))
    .flatMap((corridor) =>
      corridor.institutions.map((institution) => ({
        bankName: institution.bankName,
        displayName: institution.displayName,
        country: corridor.country,
        currency: corridor.currency,
      })),
    );
}
