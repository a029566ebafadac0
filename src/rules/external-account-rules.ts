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

/** The outcome of beneficiary-name verification for a primary-identifier suffix. */
export function beneficiaryOutcomeOf(suffix: string): BeneficiaryOutcome {
  return beneficiaryVerificationBySuffix[suffix] ?? defaultBeneficiaryOutcome;
}
