import { shortId, statusColor } from '../format.js';
import { contractPage, fieldsOf, type ResourceView } from './types.js';

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

/** External accounts: currency, type, status and beneficiary verification. */
export const externalAccountsView: ResourceView<ExternalAccountRow> = {
  id: 'external',
  title: 'External',
  columns: [
    { header: 'ID', width: 14, value: (a) => shortId(a.id) },
    { header: 'OWNER', width: 14, value: (a) => (a.customerId ? shortId(a.customerId) : 'platform') },
    { header: 'CUR', width: 5, value: (a) => a.currency },
    { header: 'TYPE', width: 0, value: (a) => a.accountInfo?.accountType ?? '' },
    { header: 'STATUS', width: 10, value: (a) => a.status, color: (a) => statusColor(a.status) },
    { header: 'BENEFICIARY', width: 14, value: beneficiaryStatus, color: (a) => statusColor(beneficiaryStatus(a)) },
  ],
  load: (client, cursor, limit) => contractPage<ExternalAccountRow>(client, '/customers/external-accounts', cursor, limit),
  key: (a) => a.id,
  detail: async (client, row) => [{ title: 'External account', lines: fieldsOf(await client.api('GET', `/customers/external-accounts/${encodeURIComponent(row.id)}`).catch(() => row)) }],
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
};
