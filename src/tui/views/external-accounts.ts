import { shortId, statusColor } from '../format.js';
import { customerCell } from '../names.js';
import { newExternalAccountForm } from './customers.js';
import { newQuoteForm } from './quotes.js';
import { contractListView } from './types.js';

/** An external account as the contract returns it. */
export interface ExternalAccountRow {
  id: string;
  customerId?: string;
  currency: string;
  status: string;
  accountInfo: { accountType: string; accountNumber?: string; iban?: string; beneficiary?: { fullName?: string; legalName?: string } };
  beneficiaryVerificationStatus?: string;
  beneficiaryVerification?: { status?: string };
  [key: string]: unknown;
}

const beneficiaryStatus = (a: ExternalAccountRow) => a.beneficiaryVerificationStatus ?? a.beneficiaryVerification?.status ?? '-';
const numberOf = (a: ExternalAccountRow) => {
  const n = a.accountInfo?.iban ?? a.accountInfo?.accountNumber;
  return n ? `…${n.slice(-4)}` : '';
};

/** External accounts: owner, beneficiary, currency, type, status and beneficiary verification. */
export const externalAccountsView = {
  ...contractListView<ExternalAccountRow>({
    id: 'external',
    title: 'External',
    path: '/customers/external-accounts',
    filters: { customer: 'customerId', currency: 'currency' },
    idPrefix: 'ExternalAccount',
    columns: [
      { header: 'OWNER', width: 0, value: (a, client) => customerCell(client, a.customerId, 'platform') },
      { header: 'BENEFICIARY', width: 24, value: (a) => a.accountInfo?.beneficiary?.fullName ?? a.accountInfo?.beneficiary?.legalName ?? '' },
      { header: 'CUR', width: 5, value: (a) => a.currency },
      { header: 'TYPE', width: 18, value: (a) => `${a.accountInfo?.accountType ?? ''} ${numberOf(a)}`.trim() },
      { header: 'STATUS', width: 10, value: (a) => a.status, color: (a) => statusColor(a.status) },
      { header: 'VERIFIED', width: 12, value: beneficiaryStatus, color: (a) => statusColor(beneficiaryStatus(a)) },
      { header: 'ID', width: 9, value: (a) => shortId(a.id) },
    ],
    actions: [
      {
        key: 'w',
        label: 'trigger EXTERNAL_ACCOUNT.STATUS_UPDATED',
        run: async (client, row) => {
          const event = await client.control<{ id: string }>('POST', '/webhooks/trigger', { type: 'EXTERNAL_ACCOUNT.STATUS_UPDATED', resourceId: row.id });
          return `triggered EXTERNAL_ACCOUNT.STATUS_UPDATED ${shortId(event.id)}`;
        },
      },
    ],
  }),
  forms: [newExternalAccountForm, newQuoteForm],
};
