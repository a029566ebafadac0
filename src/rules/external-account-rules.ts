import { ruleFamily } from './rule-ids.js';

/**
 * sandbox-rules.md, "External accounts: suffix of the primary identifier": beneficiary-name
 * verification at creation (the `1xx` range). A rule is changed in one row.
 */

/** The contract's `BeneficiaryVerificationStatus`. */
export type BeneficiaryVerificationStatus =
  | 'MATCHED'
  | 'PARTIAL_MATCH'
  | 'NOT_MATCHED'
  | 'UNSUPPORTED'
  | 'CHECKED_BY_RECEIVING_FI'
  | 'PENDING';

/** What creation does for a suffix: record a verification status, or fail as an invalid account. */
export type BeneficiaryOutcome = { status: BeneficiaryVerificationStatus } | { rejectInvalidAccount: true };

/** Suffix (last three characters of the primary identifier) -> outcome. */
export const beneficiaryVerificationBySuffix: Readonly<Record<string, BeneficiaryOutcome>> = {
  '102': { status: 'NOT_MATCHED' },
  '103': { status: 'PARTIAL_MATCH' },
  '104': { status: 'PENDING' },
  '105': { rejectInvalidAccount: true },
  '106': { status: 'UNSUPPORTED' },
  '107': { status: 'CHECKED_BY_RECEIVING_FI' },
};

/** Any other suffix. */
export const defaultBeneficiaryOutcome: BeneficiaryOutcome = { status: 'MATCHED' };

/** Rule ids of the beneficiary-verification suffixes (recorded at creation, when a beneficiary name is checked). */
export const beneficiaryVerificationRules = ruleFamily(
  'external-accounts',
  'external-accounts.beneficiary',
  {
    '102': 'External account identifier ending 102: beneficiaryVerificationStatus NOT_MATCHED',
    '103': 'External account identifier ending 103: PARTIAL_MATCH (verified name with initials)',
    '104': 'External account identifier ending 104: PENDING',
    '105': 'External account identifier ending 105: creation fails, 400 INVALID_BANK_ACCOUNT',
    '106': 'External account identifier ending 106: UNSUPPORTED',
    '107': 'External account identifier ending 107: CHECKED_BY_RECEIVING_FI',
    other: 'External account identifier without a 1xx suffix: MATCHED',
  },
  beneficiaryVerificationBySuffix,
);

/** The outcome of beneficiary-name verification for a primary-identifier suffix. */
export function beneficiaryOutcomeOf(suffix: string): BeneficiaryOutcome {
  return beneficiaryVerificationBySuffix[suffix] ?? defaultBeneficiaryOutcome;
}
