import { ruleFamily } from './rule-ids.js';

/**
 * sandbox-rules.md, "Cards": issuance by the suffix of `platformCardId` (or of the cardholder
 * id when it is absent), funding-source binding by the suffix of the internal account id, and
 * decisioning by the suffix of `merchant.descriptor`. One table per rule family; a rule is
 * changed in one row. "Suffix" is the last three characters.
 */

/** What issuance does with a new card (it is always returned `PROCESSING` first). */
export interface IssuanceOutcome {
  /** `now`: decided in the create call; `later`: after `delaySeconds` on the sandbox clock; `never`: stays PROCESSING. */
  timing: 'now' | 'later' | 'never';
  delaySeconds?: number;
  result: 'ACTIVE' | 'ISSUER_REJECTED';
}

/** Issuance suffix -> outcome. */
export const issuanceBySuffix: Readonly<Record<string, IssuanceOutcome>> = {
  '001': { timing: 'never', result: 'ACTIVE' },
  '002': { timing: 'now', result: 'ISSUER_REJECTED' },
  '005': { timing: 'later', delaySeconds: 30, result: 'ACTIVE' },
};

/** Any other suffix activates at once. */
export const defaultIssuance: IssuanceOutcome = { timing: 'now', result: 'ACTIVE' };

/** Rule ids of the issuance suffixes (recorded at `POST /cards`). */
export const issuanceRules = ruleFamily(
  'cards',
  'cards.issuance',
  {
    '001': 'Card whose platformCardId (or cardholder id) ends 001: stays PROCESSING',
    '002': 'Card ending 002: issuer rejects, CLOSED with ISSUER_REJECTED',
    '005': 'Card ending 005: activates after 30 s, then CARD.STATE_CHANGE',
    other: 'Card without a magic suffix: ACTIVE at once',
  },
  issuanceBySuffix,
);

/** Funding-source binding: internal account id suffix -> why it is ineligible. */
export const ineligibleFundingSourceBySuffix: Readonly<Record<string, string>> = {
  '002': 'insufficient balance check failed (sandbox suffix 002)',
  '003': 'account closed (sandbox suffix 003)',
};

/** Rule ids of the funding-source suffixes (recorded when a funding source is bound). */
export const fundingSourceRules = ruleFamily(
  'cards',
  'cards.funding-source',
  {
    '002': 'Funding source whose internal account id ends 002: 400 FUNDING_SOURCE_INELIGIBLE (insufficient balance check)',
    '003': 'Funding source whose internal account id ends 003: 400 FUNDING_SOURCE_INELIGIBLE (account closed)',
    other: 'Funding source without a magic suffix: bound',
  },
  ineligibleFundingSourceBySuffix,
);

/** Currencies a card may be denominated in (every funding source of a card shares one). */
export const cardEligibleCurrencies: ReadonlySet<string> = new Set(['USD', 'EUR', 'GBP', 'USDC', 'USDB']);

/** Card currencies whose issuer takes a static 3-D Secure password on `POST /cards` (EU cards). */
export const staticPasswordCurrencies: ReadonlySet<string> = new Set(['EUR']);

/** How the issuer network answers a simulated card message. */
export interface DecisionRule {
  /** `decline`: refused with `declineReason`; `approve`: decided by state, limits and balances. */
  decision: 'decline' | 'approve';
  declineReason?: 'INSUFFICIENT_FUNDS' | 'CARD_PAUSED';
  /** `delayed`: the pull stays PENDING `delaySeconds`, then CONFIRMED; `failed`: the confirmation reports FAILED (EXCEPTION). */
  pull: 'immediate' | 'delayed' | 'failed';
  delaySeconds?: number;
}

/** `merchant.descriptor` suffix -> decisioning (authorization, credit, financial and advice variants). */
export const decisionByDescriptorSuffix: Readonly<Record<string, DecisionRule>> = {
  '002': { decision: 'decline', declineReason: 'INSUFFICIENT_FUNDS', pull: 'immediate' },
  '003': { decision: 'decline', declineReason: 'CARD_PAUSED', pull: 'immediate' },
  '005': { decision: 'approve', pull: 'delayed', delaySeconds: 30 },
  '006': { decision: 'approve', pull: 'failed' },
};

/** Any other descriptor is approved (subject to state, limits and balances). */
export const defaultDecision: DecisionRule = { decision: 'approve', pull: 'immediate' };

/** Rule ids of the descriptor suffixes (recorded by each authorization-family simulation and balance inquiry). */
export const descriptorRules = ruleFamily(
  'cards',
  'cards.descriptor',
  {
    '002': 'Card simulation whose merchant.descriptor ends 002: declined INSUFFICIENT_FUNDS',
    '003': 'Descriptor ending 003: declined CARD_PAUSED',
    '005': 'Descriptor ending 005: approved, the pull stays PENDING 30 s, then CONFIRMED',
    '006': 'Descriptor ending 006: approved, the pull confirmation reports FAILED (EXCEPTION)',
    other: 'Descriptor without a magic suffix: decided by state, limits and balances',
  },
  decisionByDescriptorSuffix,
);

/** Platform card settings when none were set through `PATCH /_sandbox/cards/settings`. */
export const defaultCardSettings = {
  /** Live (not CLOSED) cards a platform may hold. */
  maxLiveCards: 1000,
  /** When true, a cardholder may hold one live card. */
  oneCardPerCardholder: false,
  /** `SERVICE`: the service decides authorisations (limits, reveal); `ISSUER`: the issuer decides (reveal is 409). */
  authorizationDecisions: 'SERVICE' as 'SERVICE' | 'ISSUER',
  /** Lifetime of a reveal URL ("a few minutes"). */
  revealTtlSeconds: 300,
};

/** The last three characters of a value. */
export function suffixOf(value: string): string {
  return value.slice(-3);
}

/** Issuance outcome for the deciding id. */
export function issuanceOf(decidingId: string): IssuanceOutcome {
  return issuanceBySuffix[suffixOf(decidingId)] ?? defaultIssuance;
}

/** Decisioning rule for a merchant descriptor. */
export function decisionOf(descriptor: string): DecisionRule {
  return decisionByDescriptorSuffix[suffixOf(descriptor)] ?? defaultDecision;
}
