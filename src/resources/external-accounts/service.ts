import { perContext } from '../../core/per-context.js';
import { ApiError, ErrorCode, type FieldError, invalidInput, notFound } from '../../core/errors.js';
import { paginate, type Page } from '../../core/pagination.js';
import { sandboxWarning, warnIgnoredFields } from '../../core/warnings.js';
import type { SandboxContext } from '../../store/context.js';
import type { OutboxEvent } from '../../events/index.js';
import { beneficiaryOutcomeOf, beneficiaryVerificationRules } from '../../rules/external-account-rules.js';
import { recordRule } from '../../store/coverage.js';
import { corridorOf, institutionOf, swiftBlockReason, swiftCurrencies, type Rail } from '../../rules/rails.js';
import { getCustomer } from '../customers/index.js';
import type { Platform } from '../../tenancy/index.js';
import { accountTypeShapes } from './account-types.generated.js';
import { ExternalAccountRepo, type ExternalAccountRow, type ListFilter } from './repo.js';
import { deletionGuards } from './guards.js';
import { checkAccountInfoShape, type ExternalAccountCreate } from './schemas.js';
import {
  abaProblem,
  bicProblem,
  bolt11Problem,
  bolt12Problem,
  dateProblem,
  e164Problem,
  emailProblem,
  evmAddressProblem,
  ibanProblem,
  isCountryCode,
  lightningAddressProblem,
  pixKeyProblem,
  solanaAddressProblem,
  sparkAddressProblem,
  sparkIdentityKey,
  tronAddressProblem,
  verifyBitcoinMessage,
  verifyEip191,
  verifySolanaMessage,
  verifyTronMessage,
  vpaProblem,
} from './validators.js';

/** The 404 code for an external account: the contract's Error404 has no dedicated one. */
const NOT_FOUND_CODE = 'REFERENCE_NOT_FOUND';

/** How long a WALLET_SIGNATURE challenge stays open. */
const SIGNATURE_CHALLENGE_MS = 15 * 60 * 1000;
/** How long a LIVENESS link stays open. */
const LIVENESS_CHALLENGE_MS = 30 * 60 * 1000;

type Chain = 'EVM' | 'SOLANA' | 'TRON' | 'SPARK';

/** Chain and currencies of each crypto wallet type. */
const walletTypes: Readonly<Record<string, { chain: Chain; currencies: readonly string[] }>> = {
  BASE_WALLET: { chain: 'EVM', currencies: ['USDC', 'USDT'] },
  ETHEREUM_WALLET: { chain: 'EVM', currencies: ['USDC', 'USDT'] },
  POLYGON_WALLET: { chain: 'EVM', currencies: ['USDC', 'USDT'] },
  PLASMA_WALLET: { chain: 'EVM', currencies: ['USDT'] },
  SOLANA_WALLET: { chain: 'SOLANA', currencies: ['USDC', 'USDT'] },
  TRON_WALLET: { chain: 'TRON', currencies: ['USDT'] },
  SPARK_WALLET: { chain: 'SPARK', currencies: ['BTC', 'USDB'] },
};

/** Destination country of each local fiat type (EUR: the IBAN's; XAF/XOF: `region`). */
const fiatCountries: Readonly<Record<string, string>> = {
  AED_ACCOUNT: 'AE', BDT_ACCOUNT: 'BD', BRL_ACCOUNT: 'BR', BWP_ACCOUNT: 'BW', CAD_ACCOUNT: 'CA', CNY_ACCOUNT: 'CN',
  COP_ACCOUNT: 'CO', DKK_ACCOUNT: 'DK', EGP_ACCOUNT: 'EG', GBP_ACCOUNT: 'GB', GHS_ACCOUNT: 'GH', GTQ_ACCOUNT: 'GT',
  HKD_ACCOUNT: 'HK', HTG_ACCOUNT: 'HT', IDR_ACCOUNT: 'ID', INR_ACCOUNT: 'IN', JMD_ACCOUNT: 'JM', KES_ACCOUNT: 'KE',
  MWK_ACCOUNT: 'MW', MXN_ACCOUNT: 'MX', MYR_ACCOUNT: 'MY', NGN_ACCOUNT: 'NG', PHP_ACCOUNT: 'PH', PKR_ACCOUNT: 'PK',
  RWF_ACCOUNT: 'RW', SGD_ACCOUNT: 'SG', SLV_ACCOUNT: 'SV', THB_ACCOUNT: 'TH', TZS_ACCOUNT: 'TZ', UGX_ACCOUNT: 'UG',
  USD_ACCOUNT: 'US', VND_ACCOUNT: 'VN', ZAR_ACCOUNT: 'ZA', ZMW_ACCOUNT: 'ZM',
};

/** The currency a local fiat type is paid in (El Salvador's is the US dollar). */
function fiatCurrencyOf(accountType: string): string {
  return accountType === 'SLV_ACCOUNT' ? 'USD' : accountType.slice(0, 3);
}

/** The identifier fields, most specific first; the first present one is the primary identifier. */
/** Fields that, with type and currency, identify a destination (duplicates are refused). */
const identityFields = ['country', 'region', 'swiftCode', 'routingNumber', 'sortCode', 'bankCode', 'branchCode', 'ifsc', 'bankName', 'provider', 'pixKeyType'];

const identifierFields = ['iban', 'clabeNumber', 'accountNumber', 'vpa', 'pixKey', 'phoneNumber', 'address', 'lightningAddress', 'invoice', 'bolt12'];

/** The contract's ExternalAccount as the API returns it. */
export interface ExternalAccount {
  id: string;
  customerId?: string;
  status: string;
  platformAccountId?: string;
  ownershipType?: string;
  currency: string;
  defaultUmaDepositAccount: boolean;
  beneficiaryVerificationStatus?: string;
  beneficiaryVerifiedData?: { fullName: string };
  accountInfo: Record<string, unknown> & { accountType: string };
}

/** Which endpoints are asking: the customer ones see every account of the platform, the platform ones only its own. */
export type Scope = 'customer' | 'platform';

/** The primary identifier of an account info: account number, IBAN, CLABE, phone, address... */
export function primaryIdentifierOf(accountInfo: Record<string, unknown>, rails?: readonly string[]): string {
  if (rails?.length === 1 && rails[0] === 'MOBILE_MONEY' && typeof accountInfo.phoneNumber === 'string') return accountInfo.phoneNumber;
  for (const field of identifierFields) {
    const value = accountInfo[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return '';
}

/**
 * sandbox-rules.md: the suffix is the last three characters of the primary identifier; for
 * identifiers with a domain part (PIX email key, UPI VPA, lightning address) the digits sit at
 * the end of the user part (`testuser.002@pix.com.br` has suffix `002`).
 */
export function suffixOf(identifier: string): string {
  const at = identifier.lastIndexOf('@');
  const user = at > 0 ? identifier.slice(0, at) : identifier;
  return user.slice(-3);
}

/** The name the rail checks: the individual's full name or the business's legal name. */
function beneficiaryName(beneficiary: Record<string, unknown> | undefined): string | undefined {
  if (!beneficiary) return undefined;
  const name = beneficiary.beneficiaryType === 'BUSINESS' ? beneficiary.legalName : beneficiary.fullName;
  return typeof name === 'string' ? name : undefined;
}

/** A fuzzy variant of a name, as a rail reporting PARTIAL_MATCH returns it: given names as initials. */
function partialName(name: string): string {
  const parts = name.trim().split(/\s+/);
  if (parts.length < 2) return name.trim().toUpperCase();
  return [...parts.slice(0, -1).map((part) => `${part[0]!.toUpperCase()}.`), parts[parts.length - 1]!].join(' ');
}

function present(row: ExternalAccountRow): ExternalAccount {
  // Field order as the contract lists them; absent optional fields are omitted, not null.
  return {
    id: row.id,
    ...(row.customer_id !== null ? { customerId: row.customer_id } : {}),
    status: row.status,
    ...(row.platform_account_id !== null ? { platformAccountId: row.platform_account_id } : {}),
    ...(row.ownership_type !== null ? { ownershipType: row.ownership_type } : {}),
    currency: row.currency,
    defaultUmaDepositAccount: row.default_uma_deposit === 1,
    ...(row.beneficiary_verification_status !== null ? { beneficiaryVerificationStatus: row.beneficiary_verification_status } : {}),
    ...(row.beneficiary_verified_name !== null ? { beneficiaryVerifiedData: { fullName: row.beneficiary_verified_name } } : {}),
    accountInfo: JSON.parse(row.account_info) as ExternalAccount['accountInfo'],
  };
}

/** The validated route of an account: destination country and the rails it is paid on. */
interface Route {
  country?: string;
  rails?: Rail[];
}

/** Format, currency and corridor checks of a shape-valid accountInfo; returns the route and every field error. */
function checkSemantics(info: Record<string, any>, currency: string): { route: Route; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const add = (field: string, message: string | undefined, constraint: Record<string, unknown> = { format: field.split('.').pop() }) => {
    // One error per field: the first (most basic) problem is the one to fix.
    if (message && !errors.some((error) => error.field === field)) errors.push({ field, constraint, message });
  };
  const accountType: string = info.accountType;
  const shape = accountTypeShapes[accountType]!;
  const route: Route = {};

  // Beneficiary formats (any type that carries one).
  const beneficiary = info.beneficiary as Record<string, any> | undefined;
  if (beneficiary) {
    const b = 'accountInfo.beneficiary';
    if (beneficiary.birthDate !== undefined) add(`${b}.birthDate`, dateProblem(beneficiary.birthDate), { format: 'date' });
    for (const field of ['nationality', 'countryOfResidence']) {
      if (beneficiary[field] !== undefined && !isCountryCode(beneficiary[field])) add(`${b}.${field}`, 'An ISO 3166-1 alpha-2 country code, such as US.', { pattern: '^[A-Z]{2}$' });
    }
    if (beneficiary.email !== undefined) add(`${b}.email`, emailProblem(beneficiary.email), { format: 'email' });
    if (beneficiary.phoneNumber !== undefined) add(`${b}.phoneNumber`, e164Problem(beneficiary.phoneNumber), { format: 'E.164' });
    if (beneficiary.address?.country !== undefined && !isCountryCode(beneficiary.address.country)) {
      add(`${b}.address.country`, 'An ISO 3166-1 alpha-2 country code, such as US.', { pattern: '^[A-Z]{2}$' });
    }
  }

  // Crypto wallets: address per chain, currency per chain.
  const walletType = walletTypes[accountType];
  if (walletType) {
    const address: string = info.address;
    const problem = {
      EVM: evmAddressProblem,
      SOLANA: solanaAddressProblem,
      TRON: tronAddressProblem,
      SPARK: sparkAddressProblem,
    }[walletType.chain](address);
    // The contract's schema accepts any address string, and the hosted sandbox's guides use
    // addresses whose checksum fails (the contract's Spark example, mixed-case EVM addresses):
    // accepted, with a warning instead of a 400.
    if (problem) sandboxWarning(`accountInfo.address: ${problem} Accepted in the sandbox; a real network would refuse it`);
    if (!walletType.currencies.includes(currency)) {
      add('currency', `A ${accountType} receives ${walletType.currencies.join(' or ')}.`, { enum: [...walletType.currencies] });
    }
    return { route, errors };
  }

  if (accountType === 'LIGHTNING') {
    const given = ['invoice', 'bolt12', 'lightningAddress'].filter((field) => info[field] !== undefined);
    if (given.length !== 1) {
      add('accountInfo', 'Give exactly one of invoice, bolt12 or lightningAddress.', { oneOf: ['invoice', 'bolt12', 'lightningAddress'] });
    }
    if (info.invoice !== undefined) add('accountInfo.invoice', bolt11Problem(info.invoice), { format: 'bolt11' });
    if (info.bolt12 !== undefined) add('accountInfo.bolt12', bolt12Problem(info.bolt12), { format: 'bolt12' });
    if (info.lightningAddress !== undefined) add('accountInfo.lightningAddress', lightningAddressProblem(info.lightningAddress), { format: 'lightning-address' });
    if (currency !== 'BTC') add('currency', 'A LIGHTNING destination receives BTC.', { enum: ['BTC'] });
    return { route, errors };
  }

  // Bank identifiers common to fiat and SWIFT.
  if (info.iban !== undefined) add('accountInfo.iban', ibanProblem(info.iban), { format: 'iban' });
  if (info.swiftCode !== undefined) add('accountInfo.swiftCode', bicProblem(info.swiftCode), { format: 'bic' });
  if (info.routingNumber !== undefined) add('accountInfo.routingNumber', abaProblem(info.routingNumber), { format: 'aba-routing-number' });
  if (info.intermediaryRoutingNumber !== undefined) add('accountInfo.intermediaryRoutingNumber', abaProblem(info.intermediaryRoutingNumber), { format: 'aba-routing-number' });

  if (accountType === 'SWIFT_ACCOUNT') {
    const country: string = info.country;
    if (!isCountryCode(country)) add('accountInfo.country', `${country} is not an ISO 3166-1 alpha-2 country code.`, { pattern: '^[A-Z]{2}$' });
    else add('accountInfo.country', swiftBlockReason(country), { rule: 'corridor' });
    if (info.swiftCode && !bicProblem(info.swiftCode) && info.swiftCode.slice(4, 6) !== country) {
      add('accountInfo.swiftCode', `The BIC's country ${info.swiftCode.slice(4, 6)} differs from the account country ${country}.`, { rule: 'country' });
    }
    if (info.iban && info.iban.slice(0, 2) !== country) add('accountInfo.iban', `The IBAN's country ${info.iban.slice(0, 2)} differs from the account country ${country}.`, { rule: 'country' });
    if (info.iban === undefined && info.accountNumber === undefined) add('accountInfo.accountNumber', 'A SWIFT account needs accountNumber or iban.', { required: true });
    // API.md: SWIFT is the international-wire fallback in USD and EUR.
    if (!swiftCurrencies.includes(currency)) add('currency', 'SWIFT payouts are in USD or EUR.', { enum: [...swiftCurrencies] });
    route.country = country;
    route.rails = ['SWIFT'];
    return { route, errors };
  }

  // Local fiat: destination country and corridor.
  let country: string | undefined = fiatCountries[accountType];
  let countryField = 'accountInfo.accountType';
  if (accountType === 'EUR_ACCOUNT') {
    country = typeof info.iban === 'string' ? info.iban.slice(0, 2) : undefined;
    countryField = 'accountInfo.iban';
  } else if (accountType === 'XAF_ACCOUNT' || accountType === 'XOF_ACCOUNT') {
    country = info.region;
    countryField = 'accountInfo.region';
  }
  const expectedCurrency = fiatCurrencyOf(accountType);
  if (currency !== expectedCurrency) add('currency', `A ${accountType} is paid in ${expectedCurrency}.`, { enum: [expectedCurrency] });
  if (!country) return { route, errors };
  route.country = country;
  const corridor = corridorOf(country);
  const swiftHint = swiftBlockReason(country) === undefined ? ' For a destination without a local rail, create a SWIFT_ACCOUNT in USD or EUR.' : '';
  const offered = (shape.paymentRails ?? []) as Rail[];
  const rails = offered.filter((rail) => corridor?.rails.includes(rail));
  if (!corridor || rails.length === 0) {
    const why = swiftBlockReason(country)?.includes('announced') ? `${country} is an announced corridor that is not available yet.` : `The service has no ${offered.join('/') || 'local'} payout rail to ${country}.`;
    add(countryField, `${why}${swiftHint}`, { rule: 'corridor' });
    return { route, errors };
  }

  // Phone numbers carry the corridor's calling code.
  if (info.phoneNumber !== undefined) add('accountInfo.phoneNumber', e164Problem(info.phoneNumber, country), { format: 'E.164' });
  if (info.pixKey !== undefined && info.pixKeyType !== undefined) add('accountInfo.pixKey', pixKeyProblem(info.pixKey, info.pixKeyType), { format: `pix-${String(info.pixKeyType).toLowerCase()}` });

  if (accountType === 'INR_ACCOUNT') {
    if (info.vpa !== undefined) add('accountInfo.vpa', vpaProblem(info.vpa), { format: 'upi-vpa' });
    if (info.vpa === undefined && info.accountNumber === undefined) add('accountInfo.vpa', 'An INR account needs a UPI vpa, or accountNumber with ifsc.', { required: true });
    if (info.accountNumber !== undefined && info.ifsc === undefined) add('accountInfo.ifsc', 'An Indian bank account number needs its IFSC.', { required: true });
    // The rails the details carry: a vpa is UPI, an account number with IFSC is NEFT/RTGS; both may
    // be given (the contract's own INR example does), and then `rail` picks one.
    const chosen: Rail[] = info.vpa === undefined ? ['NEFT', 'RTGS'] : info.accountNumber !== undefined ? ['UPI', 'NEFT', 'RTGS'] : ['UPI'];
    if (info.rail !== undefined && !chosen.includes(info.rail)) {
      add('accountInfo.rail', info.rail === 'UPI' || info.rail === 'NEFT' || info.rail === 'RTGS' ? `${info.rail} needs ${info.rail === 'UPI' ? 'a vpa' : 'accountNumber and ifsc'}.` : 'rail is UPI, NEFT or RTGS.', { enum: chosen });
    }
    route.rails = info.rail !== undefined && chosen.includes(info.rail) ? [info.rail] : chosen;
    return { route, errors };
  }

  if (accountType === 'SGD_ACCOUNT') {
    // An account number is paid on FAST or bank transfer; PayNow needs a proxy the contract does not carry.
    route.rails = rails.filter((rail) => rail !== 'PAYNOW');
    return { route, errors };
  }

  const offersMobile = rails.includes('MOBILE_MONEY');
  const offersBank = rails.includes('BANK_TRANSFER');
  if (offersMobile && !offersBank) {
    // Mobile-money corridor: the wallet is named by `provider` where several are served.
    if (info.provider !== undefined) {
      const institution = institutionOf(country, info.provider);
      if (!institution || institution.rail !== 'MOBILE_MONEY') {
        const names = corridor.institutions.filter((i) => i.rail === 'MOBILE_MONEY').map((i) => i.bankName);
        add('accountInfo.provider', `${info.provider} is not a mobile-money wallet served in ${country}; GET /discoveries?country=${country} lists them.`, { enum: names });
      }
    }
    route.rails = ['MOBILE_MONEY'];
    return { route, errors };
  }

  if (offersMobile && offersBank) {
    // Corridors listing both bank and mobile money accept either; bankName picks the wallet.
    const institution = typeof info.bankName === 'string' ? institutionOf(country, info.bankName) : undefined;
    const hasBankIdentifier = info.accountNumber !== undefined || info.iban !== undefined;
    const walletNames = corridor.institutions.filter((i) => i.rail === 'MOBILE_MONEY').map((i) => i.bankName);
    if (institution?.rail === 'MOBILE_MONEY') {
      if (info.phoneNumber === undefined && !(accountType === 'CNY_ACCOUNT' && info.accountNumber !== undefined)) {
        add('accountInfo.phoneNumber', `${institution.bankName} is a mobile-money wallet: give the wallet's phoneNumber.`, { required: true });
      }
      route.rails = ['MOBILE_MONEY'];
    } else if (hasBankIdentifier) {
      route.rails = ['BANK_TRANSFER'];
    } else if (info.phoneNumber !== undefined) {
      add('accountInfo.bankName', `A phoneNumber pays a mobile-money wallet: bankName must be one of ${walletNames.join(', ')} (GET /discoveries?country=${country}).`, { enum: walletNames });
    } else {
      add('accountInfo.accountNumber', `Give accountNumber for a bank transfer, or phoneNumber with a wallet bankName (${walletNames.join(', ')}).`, { required: true });
    }
    // API.md: China's consumer wallets pay individuals; Bank Transfer is business-to-business only.
    if (accountType === 'CNY_ACCOUNT' && route.rails && beneficiary) {
      const wanted = route.rails[0] === 'MOBILE_MONEY' ? 'INDIVIDUAL' : 'BUSINESS';
      if (beneficiary.beneficiaryType !== wanted) {
        add(
          'accountInfo.beneficiary.beneficiaryType',
          wanted === 'INDIVIDUAL' ? 'China consumer wallet payouts are for individuals only.' : 'China bank transfers are business-to-business only; pay individuals to Alipay or WeChat Pay.',
          { enum: [wanted] },
        );
      }
    }
    return { route, errors };
  }

  route.rails = rails;
  return { route, errors };
}

const repoOf = perContext((ctx: SandboxContext) => new ExternalAccountRepo(ctx.db));

function notFoundError(id: string): ApiError {
  return notFound(NOT_FOUND_CODE, `No external account ${id} on this platform.`);
}

/** The live row for the scope, or 404 (another platform's id included). */
function rowFor(ctx: SandboxContext, platformId: string, id: string, scope: Scope): ExternalAccountRow {
  const row = repoOf(ctx).byId(platformId, id);
  if (!row || row.deleted_at !== null || (scope === 'platform' && row.customer_id !== null)) throw notFoundError(id);
  return row;
}

/**
 * The format errors of the bank identifiers that are strings, for a request whose shape failed
 * elsewhere: each wrong field is named, not only the first family of problems found.
 */
function bankIdentifierErrors(info: Record<string, unknown>, already: FieldError[]): FieldError[] {
  const out: FieldError[] = [];
  const checks: [string, (value: string) => string | undefined, Record<string, unknown>][] = [
    ['iban', ibanProblem, { format: 'iban' }],
    ['swiftCode', bicProblem, { format: 'bic' }],
    ['routingNumber', abaProblem, { format: 'aba-routing-number' }],
  ];
  for (const [key, problemOf, constraint] of checks) {
    const value = info[key];
    const field = `accountInfo.${key}`;
    if (typeof value !== 'string' || already.some((error) => error.field === field)) continue;
    const message = problemOf(value);
    if (message) out.push({ field, constraint, message });
  }
  return out;
}

/**
 * The customer a request body names in `customerId`: an unknown one is `400 INVALID_INPUT` on
 * that field (the contract's creation declares 400 and no 404: the path names no resource).
 */
function customerNamed(ctx: SandboxContext, platformId: string, customerId: string): ReturnType<typeof getCustomer> {
  try {
    return getCustomer(ctx, platformId, customerId);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    throw invalidInput(error.message, [{ field: 'customerId', constraint: { rule: 'exists' }, message: error.message }]);
  }
}

/** Creates an external account: shape, formats, corridor, counterparty rules, beneficiary check; one transaction. */
export function createExternalAccount(ctx: SandboxContext, platform: Platform, input: ExternalAccountCreate, scope: Scope): ExternalAccount {
  // API.md lists LIGHTNING_ACCOUNT; the contract maps it onto the LIGHTNING shape, whose accountType is LIGHTNING.
  const requested = input.accountInfo.accountType === 'LIGHTNING_ACCOUNT' ? { ...input.accountInfo, accountType: 'LIGHTNING' } : input.accountInfo;
  const shape = checkAccountInfoShape(requested);
  if (!shape.ok) throw invalidInput('The external account is not valid.', [...shape.errors, ...bankIdentifierErrors(requested, shape.errors)]);
  const info = shape.accountInfo;
  warnIgnoredFields(requested, info, 'accountInfo.');
  const { route, errors } = checkSemantics(info, input.currency);
  const wallet = walletTypes[String(info.accountType)];
  const counterpartyRules = platform.settings.counterpartyRules === true;
  const selfCustody = wallet !== undefined && info.vaspName === undefined;
  if (wallet && counterpartyRules) {
    // API.md: ownershipType is required for self-custody wallets on platforms subject to counterparty rules.
    if (selfCustody && input.ownershipType === undefined) {
      errors.push({ field: 'ownershipType', constraint: { required: true }, message: 'Required for a self-custody wallet on this platform (counterparty rules): FIRST_PARTY or THIRD_PARTY.' });
    }
    if (input.ownershipType === 'THIRD_PARTY' && info.beneficiary === undefined) {
      errors.push({ field: 'accountInfo.beneficiary', constraint: { required: true }, message: 'A THIRD_PARTY wallet needs its owner as beneficiary on this platform (counterparty rules).' });
    }
  }
  if (scope === 'platform' && input.defaultUmaDepositAccount) {
    errors.push({ field: 'defaultUmaDepositAccount', constraint: { rule: 'customer-only' }, message: 'Only a customer account can be the default UMA deposit account.' });
  }
  if (errors.length) throw invalidInput('The external account is not valid.', errors);

  const customerId = input.customerId ?? null;
  if (customerId !== null) {
    const customer = customerNamed(ctx, platform.id, customerId);
    // API.md: China's Bank Transfer is business-to-business only; the paying customer must be a business too.
    if (info.accountType === 'CNY_ACCOUNT' && route.rails?.[0] === 'BANK_TRANSFER' && customer.customerType !== 'BUSINESS') {
      throw invalidInput('The external account is not valid.', [
        { field: 'customerId', constraint: { rule: 'business-to-business' }, message: 'China bank transfers are business-to-business only: the customer must be a BUSINESS.' },
      ]);
    }
  }

  const paymentRails = route.rails;
  const accountInfo: Record<string, unknown> = { ...info };
  if (paymentRails && accountTypeShapes[String(info.accountType)]?.paymentRails) accountInfo.paymentRails = paymentRails;
  const identifier = primaryIdentifierOf(info, paymentRails);
  // EVM addresses are one address in any letter case (EIP-55 only adds a checksum).
  const identity = wallet?.chain === 'EVM' ? identifier.toLowerCase() : identifier;
  const identityKey = JSON.stringify([info.accountType, input.currency, identity, ...identityFields.map((f) => (typeof info[f] === 'string' ? (info[f] as string).toLowerCase() : null))]);

  // sandbox-rules.md: beneficiary-name verification at creation, by the 1xx suffix of the primary identifier.
  const name = beneficiaryName(info.beneficiary as Record<string, unknown> | undefined);
  let verification: string | null = null;
  let verifiedName: string | null = null;
  if (name !== undefined) {
    const outcome = beneficiaryOutcomeOf(suffixOf(identifier));
    recordRule(ctx, platform.id, beneficiaryVerificationRules.of(suffixOf(identifier)));
    if ('rejectInvalidAccount' in outcome) {
      throw new ApiError(400, 'INVALID_BANK_ACCOUNT', 'The receiving institution reports this account as invalid.', {
        errors: [{ field: `accountInfo.${identifierFields.find((f) => info[f] === identifier) ?? 'accountNumber'}`, constraint: { rule: 'account-exists' }, message: 'No such account at the receiving institution.' }],
      });
    }
    verification = outcome.status;
    if (outcome.status === 'MATCHED') verifiedName = name;
    if (outcome.status === 'PARTIAL_MATCH') verifiedName = partialName(name);
  }

  const status = wallet && counterpartyRules && selfCustody && input.ownershipType === 'FIRST_PARTY' ? 'PENDING_OWNERSHIP_VERIFICATION' : 'ACTIVE';
  const platformAccountId = input.platformAccountId ?? (typeof input.accountInfo.platformAccountId === 'string' ? input.accountInfo.platformAccountId : undefined);
  return ctx.tx(() => {
    const repo = repoOf(ctx);
    const duplicate = repo.duplicateOf(platform.id, customerId, identityKey);
    if (duplicate) throw new ApiError(409, ErrorCode.CONFLICT, `This account already exists as ${duplicate}.`, { externalAccountId: duplicate });
    const now = ctx.clock.iso();
    if (customerId !== null && input.defaultUmaDepositAccount) repo.clearDefaultUmaDeposit(platform.id, customerId, now);
    const row: ExternalAccountRow = {
      id: ctx.ids.next('ExternalAccount'),
      platform_id: platform.id,
      customer_id: customerId,
      currency: input.currency,
      account_type: String(info.accountType),
      status,
      platform_account_id: platformAccountId ?? null,
      ownership_type: input.ownershipType ?? null,
      default_uma_deposit: customerId !== null && input.defaultUmaDepositAccount ? 1 : 0,
      beneficiary_verification_status: verification,
      beneficiary_verified_name: verifiedName,
      account_info: JSON.stringify(accountInfo),
      primary_identifier: identifier,
      identity_key: identityKey,
      self_custody: selfCustody ? 1 : 0,
      challenge_method: null,
      challenge_message: null,
      challenge_expires_at: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    repo.insert(row);
    return present(row);
  });
}

/** A page of live accounts. */
export function listExternalAccounts(
  ctx: SandboxContext,
  platform: Platform,
  query: { limit: number; cursor?: string | undefined; currency?: string | undefined; customerId?: string | undefined },
  scope: Scope,
): Page<ExternalAccount> {
  const filter: ListFilter = { platformId: platform.id, platformOwnedOnly: scope === 'platform', customerId: query.customerId, currency: query.currency };
  const repo = repoOf(ctx);
  return paginate(query, (request) => repo.page(filter, request), () => repo.count(filter), (row) => row.id, present);
}

/** One live account as its GET returns it, or 404. */
export function getExternalAccountFor(ctx: SandboxContext, platformId: string, id: string, scope: Scope): ExternalAccount {
  return present(rowFor(ctx, platformId, id, scope));
}

/** API.md: the customer's `defaultUmaDepositAccount` (at most one), which receives their incoming UMA payments; undefined when none is set. */
export function defaultUmaDepositAccountOf(ctx: SandboxContext, platformId: string, customerId: string): ExternalAccount | undefined {
  const row = repoOf(ctx).defaultUmaDepositOf(platformId, customerId);
  return row ? present(row) : undefined;
}

/** Deletes an account (kept for history, gone from the API). */
export function deleteExternalAccount(ctx: SandboxContext, platformId: string, id: string, scope: Scope): void {
  ctx.tx(() => {
    const row = rowFor(ctx, platformId, id, scope);
    for (const guard of deletionGuards) guard(ctx, platformId, row.id);
    repoOf(ctx).softDelete(row.id, ctx.clock.iso());
  });
}

function setStatus(ctx: SandboxContext, row: ExternalAccountRow, status: string): ExternalAccountRow {
  const now = ctx.clock.iso();
  const repo = repoOf(ctx);
  if (row.status === status) return row;
  repo.updateStatus(row.id, status, now);
  const next = { ...row, status, updated_at: now };
  ctx.outbox.append(row.platform_id, 'EXTERNAL_ACCOUNT.STATUS_UPDATED', row.id, present(next));
  return next;
}

/** The contract's OwnershipChallenge. */
export type OwnershipChallenge =
  | { method: 'WALLET_SIGNATURE'; messageToSign: string; expiresAt: string }
  | { method: 'LIVENESS'; verificationLink: string; expiresAt: string };

/**
 * Starts (or restarts) ownership verification of a FIRST_PARTY self-custody wallet in
 * PENDING_OWNERSHIP_VERIFICATION or UNVERIFIED; an UNVERIFIED account returns to
 * PENDING_OWNERSHIP_VERIFICATION. `origin` is the sandbox's own address, for the hosted link.
 */
export function startOwnershipChallenge(
  ctx: SandboxContext,
  platformId: string,
  id: string,
  scope: Scope,
  method: 'WALLET_SIGNATURE' | 'LIVENESS',
  origin: string,
): OwnershipChallenge {
  return ctx.tx(() => {
    let row = rowFor(ctx, platformId, id, scope);
    if (!walletTypes[row.account_type] || row.self_custody !== 1) {
      throw new ApiError(409, ErrorCode.CONFLICT, 'Ownership verification applies only to self-custody crypto wallets.');
    }
    if (row.ownership_type !== 'FIRST_PARTY') throw new ApiError(409, ErrorCode.CONFLICT, 'Ownership verification applies only to FIRST_PARTY wallets.');
    if (row.status !== 'PENDING_OWNERSHIP_VERIFICATION' && row.status !== 'UNVERIFIED') {
      throw new ApiError(409, ErrorCode.CONFLICT, `The account is ${row.status}: there is no ownership to verify.`);
    }
    row = setStatus(ctx, row, 'PENDING_OWNERSHIP_VERIFICATION');
    const now = ctx.clock.now();
    const nonce = ctx.ids.next('Nonce').slice('Nonce:'.length);
    const nowIso = ctx.clock.iso();
    if (method === 'WALLET_SIGNATURE') {
      const address = String((JSON.parse(row.account_info) as { address: string }).address);
      const messageToSign = `I verify that I control this wallet.\nAddress: ${address}\nAccount: ${row.id}\nNonce: ${nonce}`;
      const expiresAt = new Date(now + SIGNATURE_CHALLENGE_MS).toISOString();
      repoOf(ctx).setChallenge(row.id, method, messageToSign, expiresAt, nowIso);
      return { method, messageToSign, expiresAt };
    }
    const expiresAt = new Date(now + LIVENESS_CHALLENGE_MS).toISOString();
    repoOf(ctx).setChallenge(row.id, method, nonce, expiresAt, nowIso);
    return { method, verificationLink: `${origin}/hosted/ownership/${row.id}/${nonce}`, expiresAt };
  });
}

/**
 * Completes a WALLET_SIGNATURE challenge: a valid signature before `expiresAt` makes the account
 * ACTIVE; an invalid or late one makes it UNVERIFIED (committed) and answers 400.
 */
export function verifyOwnership(
  ctx: SandboxContext,
  platformId: string,
  id: string,
  scope: Scope,
  body: { signature: string; signatureScheme: 'bip137' | 'electrum' },
): ExternalAccount {
  const result = ctx.tx(() => {
    const row = rowFor(ctx, platformId, id, scope);
    if (row.challenge_method !== 'WALLET_SIGNATURE' || row.challenge_message === null || row.challenge_expires_at === null) {
      throw new ApiError(409, ErrorCode.CONFLICT, 'No WALLET_SIGNATURE challenge is outstanding for this account; start one first.');
    }
    const expired = ctx.clock.now() > Date.parse(row.challenge_expires_at);
    const address = String((JSON.parse(row.account_info) as { address: string }).address);
    const valid = !expired && signatureValid(row.account_type, address, row.challenge_message, body);
    repoOf(ctx).setChallenge(row.id, null, null, null, ctx.clock.iso());
    const next = setStatus(ctx, { ...row, challenge_method: null }, valid ? 'ACTIVE' : 'UNVERIFIED');
    return { valid, expired, account: present(next) };
  });
  if (!result.valid) {
    throw invalidInput(
      result.expired ? 'The challenge expired; the account is UNVERIFIED. Start a new challenge.' : 'The signature does not verify for this wallet; the account is UNVERIFIED. Start a new challenge.',
      [{ field: 'signature', constraint: { rule: result.expired ? 'challenge-expired' : 'wallet-signature' }, message: result.expired ? 'The challenge expired.' : 'Invalid signature over messageToSign.' }],
    );
  }
  return result.account;
}

function signatureValid(accountType: string, address: string, message: string, body: { signature: string; signatureScheme: 'bip137' | 'electrum' }): boolean {
  switch (walletTypes[accountType]?.chain) {
    case 'EVM':
      return verifyEip191(address, message, body.signature);
    case 'TRON':
      return verifyTronMessage(address, message, body.signature);
    case 'SOLANA':
      return verifySolanaMessage(address, message, body.signature);
    case 'SPARK': {
      const key = sparkIdentityKey(address);
      return key !== undefined && verifyBitcoinMessage(key, message, body.signature, body.signatureScheme);
    }
    default:
      return false;
  }
}

/** The hosted LIVENESS flow's page data, or undefined when the link is unknown, used or expired. */
export function livenessSession(ctx: SandboxContext, id: string, token: string): { account: ExternalAccount; expiresAt: string } | undefined {
  const row = repoOf(ctx).byIdAnyPlatform(id);
  if (!row || row.deleted_at !== null || row.challenge_method !== 'LIVENESS' || row.challenge_message !== token || row.challenge_expires_at === null) return undefined;
  if (ctx.clock.now() > Date.parse(row.challenge_expires_at)) return undefined;
  return { account: present(row), expiresAt: row.challenge_expires_at };
}

/** The asynchronous LIVENESS outcome from the hosted flow: ACTIVE on pass, UNVERIFIED on fail, with the status event. */
export function completeLiveness(ctx: SandboxContext, id: string, token: string, passed: boolean): ExternalAccount | undefined {
  return ctx.tx(() => {
    if (!livenessSession(ctx, id, token)) return undefined;
    const row = repoOf(ctx).byIdAnyPlatform(id)!;
    repoOf(ctx).setChallenge(row.id, null, null, null, ctx.clock.iso());
    return present(setStatus(ctx, { ...row, challenge_method: null }, passed ? 'ACTIVE' : 'UNVERIFIED'));
  });
}

/**
 * `webhooks trigger EXTERNAL_ACCOUNT.STATUS_UPDATED`: announces an account's current status with
 * the same event as a real status change. Without an id, a platform USD account is created first
 * through `createExternalAccount` (account number from a fresh id, suffix 000: no rule outcome).
 */
export function triggerStatusUpdated(ctx: SandboxContext, platform: Platform, id: string | undefined): OutboxEvent {
  return ctx.tx(() => {
    let accountId = id;
    if (accountId === undefined) {
      const digits = ctx.ids.next('Trigger').replace(/[^0-9]/g, '').slice(-9).padStart(9, '0');
      accountId = createExternalAccount(
        ctx,
        platform,
        {
          currency: 'USD',
          defaultUmaDepositAccount: false,
          accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: `${digits}000`, routingNumber: '021000021', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Sandbox Trigger Ltd' } },
        },
        'platform',
      ).id;
    }
    const row = rowFor(ctx, platform.id, accountId, 'customer');
    return ctx.outbox.append(platform.id, 'EXTERNAL_ACCOUNT.STATUS_UPDATED', row.id, present(row));
  });
}

/** Removes every external account of a platform (sandbox reset). */
export function removePlatformExternalAccounts(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).deletePlatform(platformId);
}

/**
 * An external account of a platform for other areas (transfers, quotes): the live account as
 * its GET returns it, or `404 REFERENCE_NOT_FOUND`. Customer and platform accounts alike.
 */
export function getExternalAccount(ctx: SandboxContext, platformId: string, id: string): ExternalAccount {
  return getExternalAccountFor(ctx, platformId, id, 'customer');
}

/** The suffix the sandbox outcome tables key on: last three characters of the account's primary identifier (user part for `@` identifiers). */
export function primaryIdentifierSuffix(account: ExternalAccount): string {
  const rails = account.accountInfo.paymentRails as readonly string[] | undefined;
  return suffixOf(primaryIdentifierOf(account.accountInfo, rails));
}
