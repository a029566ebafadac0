import { accountsView } from './accounts.js';
import { customersView } from './customers.js';
import { externalAccountsView } from './external-accounts.js';
import { jobsView } from './jobs.js';
import { transactionsView } from './transactions.js';
import type { ResourceView } from './types.js';
import { webhooksView } from './webhooks.js';
import { quotesView } from './quotes.js';
import { cardsView } from './cards.js';
import { agentsView, approvalsView } from './agents.js';
import { invitationsView, scaView, stablecoinsView, tokensView, walletSessionsView } from './newer.js';

export type { Column, DetailSection, FormField, FormSpec, LoadRequest, Order, Page, ResourceView, ViewAction } from './types.js';
export { contractListView } from './types.js';

/** The views, in tab order (keys 1-9, then Tab). A new resource view is one line here. */
export const views: readonly ResourceView<any>[] = [
  customersView,
  accountsView,
  externalAccountsView,
  transactionsView,
  webhooksView,
  jobsView,
  quotesView,
  cardsView,
  approvalsView,
  agentsView,
  scaView,
  walletSessionsView,
  stablecoinsView,
  invitationsView,
  tokensView,
];
