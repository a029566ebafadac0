import { formatMoney, shortId, statusColor } from '../format.js';
import { RequestError } from '../client.js';
import { contractPage, fieldsOf, type ResourceView, type ViewAction } from './types.js';

/** A customer as `GET /customers` returns it (the fields the view reads). */
export interface CustomerRow {
  id: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  platformCustomerId?: string;
  fullName?: string;
  businessInfo?: { legalName?: string };
  kycStatus?: string;
  kybStatus?: string;
  contactVerification?: Record<string, string>;
  isDeleted?: boolean;
  [key: string]: unknown;
}

const statusOf = (c: CustomerRow) => c.kycStatus ?? c.kybStatus ?? '';

/** Contact channels and their verification status, or `-`. */
const contactOf = (c: CustomerRow) => {
  const channels = Object.entries(c.contactVerification ?? {});
  return channels.length ? channels.map(([channel, state]) => `${channel}:${String(state).slice(0, 4).toLowerCase()}`).join(' ') : '-';
};

const decide = (key: string, label: string, decision: 'APPROVED' | 'REJECTED' | 'HOLD'): ViewAction<CustomerRow> => ({
  key,
  label,
  run: async (client, row) => {
    try {
      const body = await client.control<{ customer: CustomerRow }>('POST', `/customers/${encodeURIComponent(row.id)}/kyc-decision`, { decision });
      return `${shortId(row.id)} is now ${statusOf(body.customer)}`;
    } catch (error) {
      // A decision is final: say so in the few words the status line has room for.
      const already = error instanceof RequestError && error.status === 409 ? /is already (APPROVED|REJECTED)/.exec(error.message)?.[1] : undefined;
      if (already) throw new Error(`409: ${shortId(row.id)} is already ${already}; a decision is final`);
      throw error;
    }
  },
});

/** Customers: type, name, KYC/KYB status in colour, contact verification. */
export const customersView: ResourceView<CustomerRow> = {
  id: 'customers',
  title: 'Customers',
  columns: [
    { header: 'ID', width: 9, value: (c) => shortId(c.id) },
    { header: 'TYPE', width: 10, value: (c) => c.customerType },
    { header: 'NAME', width: 0, value: (c) => c.fullName ?? c.businessInfo?.legalName ?? '' },
    { header: 'KYC/KYB', width: 12, value: (c) => statusOf(c) + (c.isDeleted ? '*' : ''), color: (c) => statusColor(statusOf(c)) },
    { header: 'CONTACT', width: 16, value: contactOf },
  ],
  load: (client, cursor, limit) => contractPage<CustomerRow>(client, '/customers', cursor, limit),
  key: (c) => c.id,
  detail: async (client, row) => {
    const id = encodeURIComponent(row.id);
    const [customer, verifications, accounts, owners, documents] = await Promise.all([
      client.api<CustomerRow>('GET', `/customers/${id}`),
      client.api<{ data: { id: string; verificationStatus: string; errors?: { type: string; field?: string; reason?: string }[] }[] }>('GET', `/verifications?customerId=${id}`).catch(() => ({ data: [] })),
      client.api<{ data: { id: string; status: string; balance: { amount: number; currency: { code: string; decimals?: number } } }[] }>('GET', `/customers/internal-accounts?customerId=${id}&limit=100`),
      row.customerType === 'BUSINESS'
        ? client.api<{ data: { id: string; roles?: string[]; personalInfo?: { fullName?: string }; kycStatus?: string }[] }>('GET', `/beneficial-owners?customerId=${id}`).catch(() => ({ data: [] }))
        : Promise.resolve({ data: [] }),
      client.api<{ data: { id: string; documentType: string; side?: string; status?: string }[] }>('GET', `/documents?documentHolder=${id}`).catch(() => ({ data: [] })),
    ]);
    return [
      { title: 'Customer', lines: fieldsOf(customer) },
      {
        title: `Verifications (${verifications.data.length})`,
        lines: verifications.data.flatMap((v) => [
          `${v.id}  ${v.verificationStatus}`,
          ...(v.errors ?? []).map((e) => `    ${e.type}${e.field ? ` ${e.field}` : ''}${e.reason ? `: ${e.reason}` : ''}`),
        ]),
      },
      { title: `Documents (${documents.data.length})`, lines: documents.data.map((d) => `${d.id}  ${d.documentType}${d.side ? ` ${d.side}` : ''}${d.status ? `  ${d.status}` : ''}`) },
      { title: `Owners (${owners.data.length})`, lines: owners.data.map((o) => `${o.id}  ${o.personalInfo?.fullName ?? ''}  ${(o.roles ?? []).join(',')}  ${o.kycStatus ?? ''}`) },
      { title: `Internal accounts (${accounts.data.length})`, lines: accounts.data.map((a) => `${a.id}  ${a.status}  ${formatMoney(a.balance)}`) },
    ];
  },
  actions: [
    decide('a', 'approve KYC/KYB', 'APPROVED'),
    decide('x', 'reject KYC/KYB', 'REJECTED'),
    decide('h', 'hold KYC/KYB', 'HOLD'),
    {
      key: 'w',
      label: 'trigger the webhook of its KYC/KYB status',
      run: async (client, row) => {
        const type = `CUSTOMER.${row.customerType === 'BUSINESS' ? 'KYB' : 'KYC'}_${statusOf(row)}`;
        const event = await client.control<{ id: string }>('POST', '/webhooks/trigger', { type, resourceId: row.id });
        return `triggered ${type} ${shortId(event.id)}`;
      },
    },
  ],
};
