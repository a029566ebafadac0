import { businessCreationRules, contactCodeRules, documentRejectionRules, individualNameRules, ownerLastNameRules, paperworkSkippingRules, registrationNumberRules } from './kyc-rules.js';
import { beneficiaryVerificationRules } from './external-account-rules.js';
import { transferInRules, transferOutRules } from './transfer-rules.js';
import { payoutRules } from './quote-rules.js';
import { umaCounterpartyRules, umaReceiverRules, umaSenderRules } from './uma-addresses.js';
import { descriptorRules, fundingSourceRules, issuanceRules } from './card-rules.js';
import { lockoutRules, riskSignalRules, scaCodeRules, scaLegacyPasskeyRules } from './sca-rules.js';
import { walletLiteralRules } from './wallet-rules.js';
import { amountRuleIds, issuanceRuleIds, providerCredentialRuleIds } from './stablecoin-rules.js';
import type { RuleFamily, SandboxRule } from './rule-ids.js';

/**
 * Every sandbox rule with its coverage id: the rows of docs/sandbox-rules.md's tables and of the
 * pages it links (cards, SCA, embedded wallet, customers), in the order of that page. A new
 * rule table adds its family here.
 */
export const ruleFamilies: readonly RuleFamily[] = [
  individualNameRules,
  businessCreationRules,
  registrationNumberRules,
  paperworkSkippingRules,
  ownerLastNameRules,
  documentRejectionRules,
  contactCodeRules,
  beneficiaryVerificationRules,
  transferOutRules,
  transferInRules,
  payoutRules,
  umaReceiverRules,
  umaSenderRules,
  umaCounterpartyRules,
  providerCredentialRuleIds,
  issuanceRuleIds,
  amountRuleIds,
  issuanceRules,
  fundingSourceRules,
  descriptorRules,
  scaCodeRules,
  scaLegacyPasskeyRules,
  riskSignalRules,
  lockoutRules,
  walletLiteralRules,
];

/** The whole rule list, by id. */
export const sandboxRules: readonly SandboxRule[] = ruleFamilies.flatMap((family) => family.rules);

const seen = new Set<string>();
for (const rule of sandboxRules) {
  if (seen.has(rule.id)) throw new Error(`sandbox rule id ${rule.id} is declared twice`);
  seen.add(rule.id);
}
