import type { FieldError } from '../../core/errors.js';

// ISO 3166-1 alpha-2, officially assigned codes.
const COUNTRY_CODES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ ' +
    'DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT ' +
    'JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG ' +
    'NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH ' +
    'TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/** Whether `value` is an ISO 3166-1 alpha-2 code (upper case). */
export function isCountryCode(value: string): boolean {
  return COUNTRY_CODES.has(value);
}

/** The EU member states: the regions that verify a customer's contact channels. */
export const EU_COUNTRIES: ReadonlySet<string> = new Set(
  'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '),
);

/**
 * Business tax-id formats by country: the US EIN and the VAT / company numbers of the European
 * countries of the rails table (the country prefix, e.g. `DE` or `EL` for Greece, is optional).
 */
const TAX_ID_FORMATS: Record<string, { pattern: RegExp; example: string; prefix?: string }> = {
  US: { pattern: /^\d{2}-?\d{7}$/, example: '12-3456789 (EIN)' },
  AT: { pattern: /^U\d{8}$/, example: 'ATU12345678' },
  BE: { pattern: /^[01]\d{9}$/, example: 'BE0123456789' },
  BG: { pattern: /^\d{9,10}$/, example: 'BG123456789' },
  CY: { pattern: /^\d{8}[A-Z]$/, example: 'CY12345678X' },
  CZ: { pattern: /^\d{8,10}$/, example: 'CZ12345678' },
  DE: { pattern: /^\d{9}$/, example: 'DE123456789' },
  DK: { pattern: /^\d{8}$/, example: 'DK12345678' },
  EE: { pattern: /^\d{9}$/, example: 'EE123456789' },
  GR: { pattern: /^\d{9}$/, example: 'EL123456789', prefix: 'EL' },
  ES: { pattern: /^[A-Z0-9]\d{7}[A-Z0-9]$/, example: 'ESX1234567X' },
  FI: { pattern: /^\d{8}$/, example: 'FI12345678' },
  FR: { pattern: /^[A-HJ-NP-Z0-9]{2}\d{9}$/, example: 'FR12345678901' },
  HR: { pattern: /^\d{11}$/, example: 'HR12345678901' },
  HU: { pattern: /^\d{8}$/, example: 'HU12345678' },
  IE: { pattern: /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/, example: 'IE1234567WA' },
  IS: { pattern: /^\d{5,6}$/, example: 'IS12345' },
  IT: { pattern: /^\d{11}$/, example: 'IT12345678901' },
  LI: { pattern: /^\d{5}$/, example: 'LI12345' },
  LT: { pattern: /^(\d{9}|\d{12})$/, example: 'LT123456789' },
  LU: { pattern: /^\d{8}$/, example: 'LU12345678' },
  LV: { pattern: /^\d{11}$/, example: 'LV12345678901' },
  MT: { pattern: /^\d{8}$/, example: 'MT12345678' },
  NL: { pattern: /^\d{9}B\d{2}$/, example: 'NL123456789B01' },
  NO: { pattern: /^\d{9}(MVA)?$/, example: 'NO123456789MVA' },
  PL: { pattern: /^\d{10}$/, example: 'PL1234567890' },
  PT: { pattern: /^\d{9}$/, example: 'PT123456789' },
  RO: { pattern: /^\d{2,10}$/, example: 'RO1234567890' },
  SE: { pattern: /^\d{10}01$/, example: 'SE123456789001' },
  SI: { pattern: /^\d{8}$/, example: 'SI12345678' },
  SK: { pattern: /^\d{10}$/, example: 'SK1234567890' },
  CH: { pattern: /^E-?\d{3}\.?\d{3}\.?\d{3}( ?(MWST|TVA|IVA))?$/, example: 'CHE-123.456.789 MWST' },
};

/** A field error when `taxId` does not fit the format of `country`; undefined when it fits or the country has no known format. */
export function checkTaxId(taxId: string, country: string, field: string): FieldError | undefined {
  const format = TAX_ID_FORMATS[country];
  if (!format) {
    return /^[A-Za-z0-9][A-Za-z0-9 ./-]{3,39}$/.test(taxId)
      ? undefined
      : { field, constraint: { pattern: '^[A-Za-z0-9][A-Za-z0-9 ./-]{3,39}$' }, message: 'A tax id of 4 to 40 letters, digits, spaces, dots, slashes or dashes.' };
  }
  let value = taxId.replace(/\s+/g, ' ').trim().toUpperCase();
  const prefix = format.prefix ?? country;
  if (country === 'CH') {
    if (value.startsWith('CH')) value = value.slice(2);
  } else {
    value = value.replace(/ /g, '');
    if (value.startsWith(prefix)) value = value.slice(prefix.length);
  }
  if (format.pattern.test(value)) return undefined;
  return {
    field,
    constraint: { pattern: format.pattern.source },
    message: `${taxId} is not a valid ${country} tax id; expected something like ${format.example}.`,
  };
}

/** `fullName` must hold a given and a family name (API.md: a one-word name is rejected). */
export function checkFullName(fullName: string, field: string): FieldError | undefined {
  return fullName.trim().split(/\s+/).length >= 2
    ? undefined
    : { field, constraint: { pattern: '^\\S+(\\s+\\S+)+$' }, message: 'fullName must contain a given name and a family name.' };
}

const IDENTIFIER_FORMATS: Record<string, { pattern: RegExp; example: string }> = {
  SSN: { pattern: /^\d{3}-\d{2}-\d{4}$/, example: '123-45-6789' },
  ITIN: { pattern: /^9\d{2}-\d{2}-\d{4}$/, example: '912-70-1234' },
};

/** `identifier` must fit its `idType` (individuals: SSN `###-##-####`, ITIN `9##-##-####`). */
export function checkIdentifier(idType: string | undefined, identifier: string | undefined, prefix = ''): FieldError[] {
  const errors: FieldError[] = [];
  if (identifier !== undefined && idType === undefined) {
    errors.push({ field: `${prefix}idType`, constraint: { required: true }, message: 'idType is required with identifier (SSN or ITIN).' });
  }
  if (idType !== undefined && identifier === undefined) {
    errors.push({ field: `${prefix}identifier`, constraint: { required: true }, message: `identifier is required with idType ${idType}.` });
  }
  const format = idType ? IDENTIFIER_FORMATS[idType] : undefined;
  if (format && identifier !== undefined && !format.pattern.test(identifier)) {
    errors.push({ field: `${prefix}identifier`, constraint: { pattern: format.pattern.source }, message: `An ${idType} has the form ${format.example}.` });
  }
  return errors;
}

/** Each `*Categories` field containing `OTHER` needs its `*OtherDescription` (and `purposeOfAccount: OTHER` its description). */
export function checkOtherDescriptions(fields: Record<string, unknown>, prefix = ''): FieldError[] {
  const errors: FieldError[] = [];
  const pairs: [string, string][] = [
    ['sourceOfFundsCategories', 'sourceOfFundsOtherDescription'],
    ['sourceOfWealthCategories', 'sourceOfWealthOtherDescription'],
  ];
  for (const [list, desc] of pairs) {
    const value = fields[list];
    if (Array.isArray(value) && value.includes('OTHER') && !fields[desc]) {
      errors.push({ field: `${prefix}${desc}`, constraint: { required: true }, message: `${list} contains OTHER, so ${desc} is required.` });
    }
  }
  if (fields.purposeOfAccount === 'OTHER' && !fields.purposeOfAccountOtherDescription) {
    errors.push({
      field: `${prefix}purposeOfAccountOtherDescription`,
      constraint: { required: true },
      message: 'purposeOfAccount is OTHER, so purposeOfAccountOtherDescription is required.',
    });
  }
  return errors;
}
