import { formatMoney, relativeTime, shortId, statusColor, whenCell, type Money } from '../format.js';
import { RequestError, type SandboxClient } from '../client.js';
import { receiving, sending, type QuoteRow } from './quotes.js';
import { contractPage, fieldsOf, type DetailSection, type FormSpec, type ResourceView, type ViewAction } from './types.js';

/** A customer as `GET /customers` returns it (the fields the view reads). */
export interface CustomerRow {
  id: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  platformCustomerId?: string;
  fullName?: string;
  businessInfo?: { legalName?: string };
  email?: string;
  umaAddress?: string;
  kycStatus?: string;
  kybStatus?: string;
  contactVerification?: Record<string, string>;
  isDeleted?: boolean;
  createdAt?: string;
  matchedOn?: string[];
  [key: string]: unknown;
}

const statusOf = (c: CustomerRow) => c.kycStatus ?? c.kybStatus ?? '';
export const nameOf = (c: CustomerRow) => c.fullName ?? c.businessInfo?.legalName ?? '';

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
      return `${nameOf(row) || shortId(row.id)} is now ${statusOf(body.customer)}`;
    } catch (error) {
      // A decision is final: say so in the few words the status line has room for.
      const already = error instanceof RequestError && error.status === 409 ? /is already (APPROVED|REJECTED)/.exec(error.message)?.[1] : undefined;
      if (already) throw new Error(`409: ${nameOf(row) || shortId(row.id)} is already ${already}; a decision is final`);
      throw error;
    }
  },
});

type Listed = { data: Record<string, any>[] };
const list = (client: SandboxClient, path: string, plane: 'api' | 'control' = 'api'): Promise<Listed> => client[plane]<Listed>('GET', path).catch(() => ({ data: [] }));
const money = (value: unknown) => formatMoney(value as Money);
const when = (iso: unknown) => (typeof iso === 'string' ? relativeTime(iso) : '');

/** A customer's detail: the record, then everything that names it, each line's id followable with Enter. */
export async function customerDetail(client: SandboxClient, row: CustomerRow): Promise<DetailSection[]> {
  const id = encodeURIComponent(row.id);
  const [customer, accounts, external, transactions, cards, agents, events, verifications, documents, owners, sca] = await Promise.all([
    client.api<CustomerRow>('GET', `/customers/${id}`),
    list(client, `/customers/internal-accounts?customerId=${id}&limit=100`),
    list(client, `/customers/external-accounts?customerId=${id}&limit=100`),
    list(client, `/transactions?customerId=${id}&limit=20&sortOrder=desc`),
    list(client, `/cards?cardholderId=${id}&limit=50`),
    list(client, `/agents?customerId=${id}&limit=50`),
    list(client, `/webhooks/deliveries?resourceId=${id}&limit=20`, 'control'),
    list(client, `/verifications?customerId=${id}`),
    list(client, `/documents?documentHolder=${id}`),
    row.customerType === 'BUSINESS' ? list(client, `/beneficial-owners?customerId=${id}`) : Promise.resolve({ data: [] }),
    client
      .control<{ factors?: { factor?: string; name?: string; credentialId?: string }[]; sessionExpiresAt: string | null; locked: boolean; stepUpPending: boolean }>('GET', `/sca/state?customerId=${id}`)
      .catch((error: unknown) => (error instanceof Error ? error.message : String(error))),
  ]);
  // Quotes have no list in the contract: the ones behind the customer's transactions.
  const quoteIds = [...new Set(transactions.data.map((t) => t.quoteId).filter((q): q is string => typeof q === 'string'))];
  const quotes = await Promise.all(quoteIds.map((q) => client.api<QuoteRow>('GET', `/quotes/${encodeURIComponent(q)}`).catch(() => undefined)));
  return [
    { title: 'Customer', lines: fieldsOf(customer) },
    { title: `Internal accounts (${accounts.data.length})`, lines: accounts.data.map((a) => `${a.id}  ${a.type ?? ''}  ${a.status}  ${money(a.balance)}`) },
    {
      title: `External accounts (${external.data.length})`,
      lines: external.data.map((a) => `${a.id}  ${a.currency}  ${a.accountInfo?.accountType ?? ''}  ${a.status}  ${a.accountInfo?.beneficiary?.fullName ?? a.accountInfo?.beneficiary?.legalName ?? ''}`),
    },
    {
      title: `Transactions (latest ${transactions.data.length})`,
      lines: transactions.data.map((t) => `${t.id}  ${t.type}  ${t.status}  ${money(t.type === 'INCOMING' ? (t.receivedAmount ?? t.sentAmount) : (t.sentAmount ?? t.receivedAmount))}  ${when(t.createdAt)}`),
    },
    { title: `Quotes (${quotes.filter(Boolean).length})`, lines: quotes.filter((q): q is QuoteRow => q !== undefined).map((q) => `${q.id}  ${q.status}  ${sending(q)} -> ${receiving(q)}`) },
    { title: `Cards (${cards.data.length})`, lines: cards.data.map((c) => `${c.id}  ${c.state}  ${c.brand ?? ''} ${c.last4 ? `•••• ${c.last4}` : ''}`) },
    { title: `Agents (${agents.data.length})`, lines: agents.data.map((a) => `${a.id}  ${a.name ?? ''}  ${a.isPaused ? 'paused' : 'active'}${a.isConnected ? ' connected' : ''}`) },
    { title: `Webhook events (latest ${events.data.length})`, lines: events.data.map((e) => `${e.id}  ${e.type}  ${e.status}  ${when(e.timestamp)}`) },
    {
      title: `Verifications (${verifications.data.length})`,
      lines: verifications.data.flatMap((v) => [
        `${v.id}  ${v.verificationStatus}`,
        ...((v.errors ?? []) as { type: string; field?: string; reason?: string }[]).map((e) => `    ${e.type}${e.field ? ` ${e.field}` : ''}${e.reason ? `: ${e.reason}` : ''}`),
      ]),
    },
    { title: `Documents (${documents.data.length})`, lines: documents.data.map((d) => `${d.id}  ${d.documentType}${d.side ? ` ${d.side}` : ''}${d.status ? `  ${d.status}` : ''}`) },
    {
      title: 'SCA (the SCA view: / customer=…)',
      lines:
        typeof sca === 'string'
          ? [sca]
          : [
            `session ${sca.sessionExpiresAt ? `live until ${sca.sessionExpiresAt}` : 'none'}; ${sca.locked ? 'LOCKED' : 'not locked'}${sca.stepUpPending ? '; step-up pending' : ''}`,
            ...(sca.factors ?? []).map((f) => `factor ${f.factor ?? ''}: ${f.name ?? ''}${f.credentialId ? ` ${f.credentialId}` : ''}`),
            ],
    },
    ...(row.customerType === 'BUSINESS' ? [{ title: `Owners (${owners.data.length})`, lines: owners.data.map((o) => `${o.id}  ${o.personalInfo?.fullName ?? ''}  ${(o.roles ?? []).join(',')}  ${o.kycStatus ?? ''}`) }] : []),
  ];
}

/** Renames the sandbox's field names to the form's (a business's `businessInfo.legalName` is the form's name). */
const renameFields = (error: unknown, names: Record<string, string>) => {
  if (!(error instanceof RequestError)) return error;
  return new RequestError(error.status, error.code, error.message, error.fields.map((f) => ({ ...f, field: names[f.field] ?? f.field })));
};

/** `n`: a new customer, as `POST /customers`. */
export const newCustomerForm: FormSpec = {
  key: 'n',
  title: 'New customer',
  fields: [
    { name: 'customerType', label: 'Type', initial: 'INDIVIDUAL', choices: ['INDIVIDUAL', 'BUSINESS'] },
    { name: 'fullName', label: 'Name', hint: 'full name, or legal name of a business' },
    { name: 'birthDate', label: 'Birth date', hint: 'YYYY-MM-DD (individuals)' },
    { name: 'nationality', label: 'Country', initial: 'US', hint: 'ISO code: nationality / country of a business' },
    { name: 'email', label: 'Email', hint: 'optional' },
    { name: 'platformCustomerId', label: 'Your id', hint: 'optional platformCustomerId' },
  ],
  submit: async (client, v) => {
    const optional = (name: string) => (v[name]?.trim() ? { [name]: v[name]!.trim() } : {});
    const body =
      v.customerType === 'BUSINESS'
        ? { customerType: 'BUSINESS', businessInfo: { legalName: v.fullName ?? '', country: v.nationality ?? '' }, ...optional('email'), ...optional('platformCustomerId') }
        : { customerType: 'INDIVIDUAL', fullName: v.fullName ?? '', ...optional('birthDate'), nationality: v.nationality ?? '', ...optional('email'), ...optional('platformCustomerId') };
    try {
      const created = await client.api<CustomerRow>('POST', '/customers', body);
      return { message: `created ${nameOf(created)} ${created.id} (${statusOf(created)})`, open: created.id };
    } catch (error) {
      throw renameFields(error, { 'businessInfo.legalName': 'fullName', 'businessInfo.country': 'nationality', 'businessInfo': 'fullName' });
    }
  },
};

/** `e`: a new external account of the customer (a US bank account or an IBAN), as `POST /customers/external-accounts`. */
export const newExternalAccountForm: FormSpec = {
  key: 'e',
  title: 'New external account',
  fields: [
    { name: 'customerId', label: 'Customer', initial: (c: CustomerRow | undefined) => c?.id ?? '', hint: 'empty: the platform' },
    { name: 'accountType', label: 'Account type', initial: 'USD_ACCOUNT', choices: ['USD_ACCOUNT', 'EUR_ACCOUNT'] },
    { name: 'accountNumber', label: 'Account number', hint: 'USD: account number' },
    { name: 'routingNumber', label: 'Routing number', initial: '021000021', hint: 'USD: ABA routing number' },
    { name: 'iban', label: 'IBAN', hint: 'EUR: IBAN' },
    { name: 'fullName', label: 'Beneficiary', initial: (c: CustomerRow | undefined) => (c ? nameOf(c) : ''), hint: 'full name' },
    { name: 'country', label: 'Country', initial: 'US', hint: 'beneficiary country of residence' },
  ],
  submit: async (client, v) => {
    const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: v.fullName ?? '', countryOfResidence: v.country ?? '', address: { line1: '1 Main Street', postalCode: '94105', country: v.country ?? '' } };
    const accountInfo =
      v.accountType === 'EUR_ACCOUNT'
        ? { accountType: 'EUR_ACCOUNT', iban: v.iban ?? '', beneficiary }
        : { accountType: 'USD_ACCOUNT', accountNumber: v.accountNumber ?? '', routingNumber: v.routingNumber ?? '', bankAccountType: 'CHECKING', beneficiary };
    const body = { ...(v.customerId?.trim() ? { customerId: v.customerId.trim() } : {}), currency: v.accountType === 'EUR_ACCOUNT' ? 'EUR' : 'USD', accountInfo };
    try {
      const created = await client.api<{ id: string; status: string }>('POST', v.customerId?.trim() ? '/customers/external-accounts' : '/platform/external-accounts', body);
      return { message: `created external account ${created.id} (${created.status})`, open: created.id };
    } catch (error) {
      throw renameFields(error, { 'accountInfo.beneficiary.fullName': 'fullName', 'accountInfo.beneficiary.countryOfResidence': 'country' });
    }
  },
};

/** Customers: name, type, KYC/KYB status in colour, email, contact verification, when created. */
export const customersView: ResourceView<CustomerRow> = {
  id: 'customers',
  title: 'Customers',
  columns: [
    { header: 'NAME', width: 0, value: nameOf },
    { header: 'TYPE', width: 10, value: (c) => c.customerType },
    { header: 'KYC/KYB', width: 12, value: (c) => statusOf(c) + (c.isDeleted ? '*' : ''), color: (c) => statusColor(statusOf(c)) },
    { header: 'EMAIL', width: 30, value: (c) => c.email ?? '' },
    { header: 'CONTACT', width: 16, value: contactOf },
    { header: 'CREATED', width: 20, value: (c) => whenCell(c.createdAt) },
    { header: 'ID', width: 9, value: (c) => shortId(c.id) },
  ],
  // `/` asks the sandbox: name, email, platform customer id or UMA address prefixes, or an id.
  load: async (client, request) => {
    const params = new URLSearchParams({ q: request.filter, order: request.order });
    const [page, all] = await Promise.all([
      contractPage<CustomerRow>(client, '/search/customers', request.cursor, request.limit, params, 'control'),
      // The whole list's exact count is the contract's (a maintained count).
      !request.filter && request.cursor === undefined ? client.api<{ totalCount?: number }>('GET', '/customers?limit=1') : Promise.resolve(undefined),
    ]);
    return all?.totalCount === undefined ? page : { ...page, total: all.totalCount, totalCapped: false };
  },
  orders: true,
  defaultOrder: 'desc',
  orderLabel: (order, filter) => (filter ? `by matched text ${order === 'asc' ? 'A-Z' : 'Z-A'}` : undefined),
  filterHint: 'name, email, platform customer id or UMA address (prefix), or a customer id',
  key: (c) => c.id,
  idPrefix: 'Customer',
  fetch: (client, id) => client.api<CustomerRow>('GET', `/customers/${encodeURIComponent(id)}`),
  detail: customerDetail,
  forms: [newCustomerForm, newExternalAccountForm],
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
