import { outboxMigrations } from '../store/outbox.js';
import type { Migration } from '../store/db.js';
import { idempotencyMigrations } from '../store/idempotency.js';
import { jobMigrations } from '../store/jobs.js';
import { metaMigrations } from '../store/meta.js';
import type { Area } from './area.js';
import { platformArea } from './platform/index.js';
import { internalAccountsArea } from './internal-accounts/index.js';
import { customersArea } from './customers/index.js';
import { kycArea } from './kyc/index.js';
import { webhooksArea } from './webhooks/index.js';
import { externalAccountsArea } from './external-accounts/index.js';
import { discoveriesArea } from './discoveries/index.js';
import { ledgerArea } from './ledger/index.js';
import { transactionsArea } from './transactions/index.js';
import { transfersArea } from './transfers/index.js';
import { umaArea } from './uma/index.js';
import { vaspsArea } from './vasps/index.js';
import { cryptoWithdrawalsArea } from './crypto-withdrawals/index.js';
import { ratesArea } from './rates/index.js';
import { quotesArea } from './quotes/index.js';
import { scaArea } from './sca/index.js';
import { cardsArea } from './cards/index.js';
import { agentsArea } from './agents/index.js';
import { walletAuthArea } from './wallet-auth/index.js';
import { tokensArea } from './tokens/index.js';
import { invitationsArea } from './invitations/index.js';
import { stablecoinsArea } from './stablecoins/index.js';

/** The areas of the API, in mount order. A new area is one line here. */
export const areas: readonly Area[] = [
  platformArea,
  internalAccountsArea,
  customersArea,
  kycArea,
  webhooksArea,
  externalAccountsArea,
  discoveriesArea,
  ledgerArea,
  transactionsArea,
  transfersArea,
  umaArea,
  vaspsArea,
  cryptoWithdrawalsArea,
  ratesArea,
  quotesArea,
  scaArea,
  cardsArea,
  agentsArea,
  walletAuthArea,
  tokensArea,
  invitationsArea,
  stablecoinsArea,
];

/** Every migration: the infrastructure's first, then each area's, in registry order. */
export const allMigrations: readonly Migration[] = [
  ...metaMigrations,
  ...jobMigrations,
  ...idempotencyMigrations,
  ...outboxMigrations,
  ...areas.flatMap((area) => area.migrations),
];
