import * as z from 'zod';
import type { FieldError } from '../../core/errors.js';
import { paginationQuery } from '../../core/pagination.js';
import { accountTypeShapes, type FieldSpec } from './account-types.generated.js';

const ownershipType = z.enum(['FIRST_PARTY', 'THIRD_PARTY']);
const currency = z.string().regex(/^[A-Z]{3,4}$/, 'a currency code such as USD or USDC');
const accountInfo = z.looseObject({ accountType: z.string().min(1) });

/** `ExternalAccountCreateRequest` (customer endpoint); `accountInfo` is checked by `checkAccountInfoShape`. */
export const customerExternalAccountCreate = z.object({
  customerId: z.string().min(1).optional(),
  currency,
  platformAccountId: z.string().min(1).max(255).optional(),
  ownershipType: ownershipType.optional(),
  defaultUmaDepositAccount: z.boolean().default(false),
  accountInfo,
});

/** `PlatformExternalAccountCreateRequest`. */
export const platformExternalAccountCreate = z.object({
  currency,
  platformAccountId: z.string().min(1).max(255).optional(),
  ownershipType: ownershipType.optional(),
  accountInfo,
});

export type ExternalAccountCreate = z.infer<typeof customerExternalAccountCreate>;

/** Query of `GET /customers/external-accounts`. */
export const customerListQuery = z.object({
  ...paginationQuery,
  currency: currency.optional(),
  customerId: z.string().min(1).optional(),
});

/** Query of `GET /platform/external-accounts`. */
export const platformListQuery = z.object({ ...paginationQuery, currency: currency.optional() });

/** `OwnershipChallengeRequest`. */
export const ownershipChallengeRequest = z.object({ method: z.enum(['WALLET_SIGNATURE', 'LIVENESS']) });

/** `OwnershipVerifyRequest`. */
export const ownershipVerifyRequest = z.object({
  signature: z.string().min(1).max(1024),
  signatureScheme: z.enum(['bip137', 'electrum']).default('bip137'),
});

/** The `accountType` values a platform may create (the contract's create union). */
export const creatableAccountTypes: readonly string[] = Object.keys(accountTypeShapes);

const addressSpec: Record<string, FieldSpec> = {
  line1: { required: true, minLength: 1, maxLength: 255 },
  line2: { required: false, maxLength: 255 },
  city: { required: false, maxLength: 255 },
  state: { required: false, maxLength: 255 },
  postalCode: { required: true, minLength: 1, maxLength: 32 },
  country: { required: true, pattern: '^[A-Z]{2}$' },
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks one object against field specs; strings only, plus the Address object. */
function checkFields(value: Record<string, unknown>, specs: Readonly<Record<string, FieldSpec>>, path: string, errors: FieldError[]): void {
  for (const [name, spec] of Object.entries(specs)) {
    const field = `${path}.${name}`;
    const v = value[name];
    if (v === undefined || v === null) {
      if (spec.required) errors.push({ field, constraint: { required: true }, message: 'Required.' });
      continue;
    }
    if (spec.kind === 'address') {
      if (!isObject(v)) errors.push({ field, constraint: { type: 'object' }, message: 'Expected an address object.' });
      else checkFields(v, addressSpec, field, errors);
      continue;
    }
    if (spec.kind === 'array') continue;
    if (typeof v !== 'string') {
      errors.push({ field, constraint: { type: 'string' }, message: 'Expected string.' });
      continue;
    }
    if (spec.enum && !spec.enum.includes(v)) {
      errors.push({ field, constraint: { enum: [...spec.enum] }, message: `Expected one of ${spec.enum.join(', ')}.` });
    } else if (spec.minLength !== undefined && v.length < spec.minLength) {
      errors.push({ field, constraint: { minLength: spec.minLength }, message: `At least ${spec.minLength} characters.` });
    } else if (spec.maxLength !== undefined && v.length > spec.maxLength) {
      errors.push({ field, constraint: { maxLength: spec.maxLength }, message: `At most ${spec.maxLength} characters.` });
    } else if (spec.pattern && !new RegExp(spec.pattern).test(v)) {
      errors.push({ field, constraint: { pattern: spec.pattern }, message: `Does not match ${spec.pattern}.` });
    } else if (spec.required && v.trim() === '') {
      errors.push({ field, constraint: { minLength: 1 }, message: 'Must not be blank.' });
    }
  }
}

/** The accountInfo with only the contract's fields of its type (unknown keys dropped), or field errors. */
export function checkAccountInfoShape(
  info: Record<string, unknown>,
): { ok: true; accountInfo: Record<string, unknown> } | { ok: false; errors: FieldError[] } {
  const accountType = String(info.accountType);
  const shape = accountTypeShapes[accountType];
  if (!shape) {
    return {
      ok: false,
      errors: [{ field: 'accountInfo.accountType', constraint: { enum: [...creatableAccountTypes] }, message: `${accountType} is not an account type that can be created.` }],
    };
  }
  const errors: FieldError[] = [];
  checkFields(info, shape.fields, 'accountInfo', errors);
  const clean: Record<string, unknown> = { accountType };
  for (const name of Object.keys(shape.fields)) if (info[name] !== undefined && info[name] !== null) clean[name] = info[name];
  if (shape.beneficiary) {
    const beneficiary = info.beneficiary;
    if (beneficiary === undefined || beneficiary === null) {
      if (shape.beneficiary.required) errors.push({ field: 'accountInfo.beneficiary', constraint: { required: true }, message: 'Required.' });
    } else if (!isObject(beneficiary)) {
      errors.push({ field: 'accountInfo.beneficiary', constraint: { type: 'object' }, message: 'Expected an object.' });
    } else {
      const kind = beneficiary.beneficiaryType;
      if (kind !== 'INDIVIDUAL' && kind !== 'BUSINESS') {
        errors.push({
          field: 'accountInfo.beneficiary.beneficiaryType',
          constraint: kind === undefined ? { required: true } : { enum: ['INDIVIDUAL', 'BUSINESS'] },
          message: 'beneficiaryType is INDIVIDUAL or BUSINESS.',
        });
      } else {
        const specs = shape.beneficiary[kind];
        checkFields(beneficiary, specs, 'accountInfo.beneficiary', errors);
        const cleanBeneficiary: Record<string, unknown> = { beneficiaryType: kind };
        for (const name of Object.keys(specs)) if (beneficiary[name] !== undefined && beneficiary[name] !== null) cleanBeneficiary[name] = beneficiary[name];
        if (isObject(cleanBeneficiary.address)) {
          const address: Record<string, unknown> = {};
          for (const name of Object.keys(addressSpec)) if (cleanBeneficiary.address[name] !== undefined) address[name] = cleanBeneficiary.address[name];
          cleanBeneficiary.address = address;
        }
        clean.beneficiary = cleanBeneficiary;
      }
    }
  }
  return errors.length ? { ok: false, errors } : { ok: true, accountInfo: clean };
}
