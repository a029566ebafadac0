import { ruleFamily } from './rule-ids.js';

/**
 * Sandbox rules of stablecoin issuance (issue 17): one table per rule family. The real service
 * asks the provider (Brale); the sandbox decides from these values instead.
 */

/** Outcome of verifying provider API credentials when linking a provider account. */
export type ProviderCredentialOutcome = 'ACTIVE' | 'INVALID' | 'MULTIPLE_ACCOUNTS';

/**
 * Provider credential verification, keyed on the end of `apiClientId` (first match wins;
 * anything else verifies and exposes exactly one provider account).
 * - `_invalid`: the provider rejects the credentials: `400 STABLECOIN_PROVIDER_ACCOUNT_INVALID`, nothing linked.
 * - `_multi`: the credentials expose two provider accounts (`<derived>-a`, `<derived>-b`);
 *   `providerAccountId` must name one (`400 INVALID_INPUT` without it).
 */
export const providerCredentialRules: readonly { suffix: string; outcome: ProviderCredentialOutcome }[] = [
  { suffix: '_invalid', outcome: 'INVALID' },
  { suffix: '_multi', outcome: 'MULTIPLE_ACCOUNTS' },
];

/** Rule ids of the `apiClientId` endings (recorded when a provider account is linked). */
export const providerCredentialRuleIds = ruleFamily(
  'stablecoins',
  'stablecoins.api-client-id',
  {
    _invalid: 'Provider apiClientId ending _invalid: link refused, 400 STABLECOIN_PROVIDER_ACCOUNT_INVALID',
    _multi: 'Provider apiClientId ending _multi: two provider accounts; providerAccountId must name one',
    other: 'Provider apiClientId with no magic ending: one provider account, linked',
  },
  Object.fromEntries(providerCredentialRules.map((rule) => [rule.suffix, rule])),
);

/** The outcome for a provider `apiClientId`. */
export function providerCredentialOutcome(apiClientId: string): ProviderCredentialOutcome {
  return providerCredentialRules.find((rule) => apiClientId.toLowerCase().endsWith(rule.suffix))?.outcome ?? 'ACTIVE';
}

/**
 * Issuance status of a registered stablecoin, keyed on the end of `providerTokenIdentifier`
 * (Brale's `value_type`). Anything else is an existing provider token: `PROVISIONED` at once.
 * `_review` starts in `PENDING_REVIEW`, moves to `PROVISIONING` after `issuanceStepSeconds` and to
 * `PROVISIONED` after as long again, on the sandbox clock.
 */
export const issuanceRules: readonly { suffix: string; issuanceStatus: 'REJECTED' | 'FAILED' | 'PENDING_REVIEW' }[] = [
  { suffix: '_rejected', issuanceStatus: 'REJECTED' },
  { suffix: '_failed', issuanceStatus: 'FAILED' },
  { suffix: '_review', issuanceStatus: 'PENDING_REVIEW' },
];

/** Rule ids of the `providerTokenIdentifier` endings (recorded when a stablecoin is registered). */
export const issuanceRuleIds = ruleFamily(
  'stablecoins',
  'stablecoins.token',
  {
    _rejected: 'providerTokenIdentifier ending _rejected: issuanceStatus REJECTED',
    _failed: 'providerTokenIdentifier ending _failed: issuanceStatus FAILED',
    _review: 'providerTokenIdentifier ending _review: PENDING_REVIEW, PROVISIONING an hour later, PROVISIONED an hour after that',
    other: 'providerTokenIdentifier with no magic ending: PROVISIONED at once',
  },
  Object.fromEntries(issuanceRules.map((rule) => [rule.suffix, rule])),
);

/** Seconds of each provider issuance step (`PENDING_REVIEW` -> `PROVISIONING` -> `PROVISIONED`). */
export const issuanceStepSeconds = 60 * 60;

/** Issuance status for a provider token identifier. */
export function issuanceStatusOf(providerTokenIdentifier: string): 'PROVISIONED' | 'REJECTED' | 'FAILED' | 'PENDING_REVIEW' {
  return issuanceRules.find((rule) => providerTokenIdentifier.toLowerCase().endsWith(rule.suffix))?.issuanceStatus ?? 'PROVISIONED';
}

/** Every registered stablecoin is a USD token with 6 decimals (Brale's Spark tokens); amounts must be whole cents. */
export const STABLECOIN_BASE_CURRENCY = 'USD';
export const STABLECOIN_DECIMALS = 6;

/** Per-operation amount range, in cents of the base currency: `400 AMOUNT_OUT_OF_RANGE` outside it. */
export const operationLimitsCents = { min: 1_00, max: 1_000_000_00 } as const;

/**
 * Provider outage: a mint or burn whose fiat amount ends in `.03` with the whole part ending in
 * 5 (i.e. cents % 1000 === 503, e.g. 5.03 USD or 15.03 USD) answers `503 SERVICE_UNAVAILABLE`
 * and nothing is written.
 */
export const PROVIDER_UNAVAILABLE_CENTS_SUFFIX = 503;

/** Rule ids of the mint and burn amount rules (recorded where the amount is refused). */
export const amountRuleIds = ruleFamily('stablecoins', 'stablecoins.amount', {
  '503': 'Mint or burn whose cents end in 503 (5.03 USD): 503 SERVICE_UNAVAILABLE, nothing written',
  'out-of-range': 'Mint or burn outside 1.00 to 1,000,000.00 USD: 400 AMOUNT_OUT_OF_RANGE',
  'not-whole-cents': 'Mint or burn not in whole cents: 400 INVALID_AMOUNT',
});

/** Whether the provider is "unavailable" for this amount in cents. */
export function providerUnavailable(cents: number): boolean {
  return cents % 1000 === PROVIDER_UNAVAILABLE_CENTS_SUFFIX;
}

/** Seconds, on the sandbox clock, from funds received (or provider submission) to COMPLETED, per funding source or payout rail. */
export const settlementDelaySeconds: Readonly<Record<string, number>> = {
  WIRE: 60 * 60,
  ACH_DEBIT: 24 * 60 * 60,
  SAME_DAY_ACH_DEBIT: 4 * 60 * 60,
  PROVIDER_INTERNAL_BALANCE: 60,
  EXTERNAL_ACCOUNT: 5 * 60,
  ACH_CREDIT: 24 * 60 * 60,
  SAME_DAY_ACH_CREDIT: 4 * 60 * 60,
  RTP_CREDIT: 60,
};

/** Human-readable timing of each fiat payout rail (`estimatedDelivery.timing`). */
export const payoutTiming: Readonly<Record<string, string>> = {
  WIRE: 'Same business day',
  ACH_CREDIT: '1-2 business days',
  SAME_DAY_ACH_CREDIT: 'Same business day',
  RTP_CREDIT: 'Within minutes',
};

/** How long an operation waits for external funds (wire in, or tokens sent for a burn) before it EXPIRES. */
export const FUNDING_WINDOW_SECONDS = 7 * 24 * 60 * 60;
