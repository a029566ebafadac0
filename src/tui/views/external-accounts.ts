import { shortId, statusColor } from '../format.js';
import { contractListView } from './types.js';

/** An external account as the contract returns it. */
export interface ExternalAccountRow {
  id: string;
  customerId?: string;
  currency: string;
  status: string;
  accountInfo: { accountType: string; beneficiary?: { fullName?: string; legalName?: string } };
  beneficiaryVerificationStatus?: string;
  beneficiaryVerification?: { status?: string };
  [key: string]: unknown;
}

const beneficiaryStatus = (a: ExternalAccountRow) => a.beneficiaryVerificationStatus ?? a.beneficiaryVerification?.status ?? '-';

/** External accounts: currency, type, status and beneficiary verification (a plain contract list view). */
export const externalAccountsView = contractListView<ExternalAccountRow>({
  id: 'external',
  title: 'External',
  path: '/customers/external-accounts',
  columns: [
    { header: 'ID', width: 9, value: (a) => shortId(a.id) },
    { header: 'OWNER', width: 9, value: (a) => (a.customerId ? shortId(a.customerId) : 'platform') },
    { header: 'CUR', width: 5, value: (a) => a.currency },
    { header: 'TYPE', width: 0, value: (a) => a.accountInfo?.accountType ?? '' },
    { header: 'STATUS', width: 10, value: (a) => a.status, color: (a) => statusColor(a.status) },
    { header: 'BENEFICIARY', width: 14, value: beneficiaryStatus, color: (a) => statusColor(beneficiaryStatus(a)) },
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
});
