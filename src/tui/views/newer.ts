import { shortId, statusColor, whenCell } from '../format.js';

import { contractListView, fieldsOf, filterHintOf, filterQuery, type ResourceView } from './types.js';

/** A filter that must name one record (`customer=…`): the list it opens is that record's. */
function required(filter: string, keys: Record<string, string>, what: string): URLSearchParams {
  const query = filterQuery(filter, keys);
  if (![...query.keys()].length) throw new Error(`type / ${Object.keys(keys)[0]}=… to see ${what}`);
  return query;
}

/** SCA state of a customer (`GET /_sandbox/sca/state`): factors, session, lockout, security events. */
interface ScaRow {
  id: string;
  kind: string;
  detail: string;
  at?: string;
  [key: string]: unknown;
}
const SCA_KEYS = { customer: 'customerId' };
export const scaView: ResourceView<ScaRow> = {
  id: 'sca',
  title: 'SCA',
  filterHint: `${filterHintOf(SCA_KEYS)} (a customer's factors, session and events)`,
  columns: [
    { header: 'WHAT', width: 18, value: (r) => r.kind },
    { header: 'DETAIL', width: 0, value: (r) => r.detail },
    { header: 'WHEN', width: 20, value: (r) => whenCell(r.at) },
  ],
  load: async (client, { filter }) => {
    const query = required(filter, SCA_KEYS, "a customer's SCA state");
    const state = await client.control<{
      customerId: string;
      factors?: { factor?: string; name?: string; credentialId?: string }[];
      sessionExpiresAt: string | null;
      locked: boolean;
      stepUpPending: boolean;
      events?: { eventType: string; recordedAt: string }[];
    }>('GET', `/sca/state?${query}`);
    const rows: ScaRow[] = [
      { id: 'session', kind: 'session', detail: state.sessionExpiresAt ? `live until ${state.sessionExpiresAt}` : 'none', at: state.sessionExpiresAt ?? undefined },
      { id: 'lock', kind: 'lockout', detail: `${state.locked ? 'LOCKED' : 'not locked'}${state.stepUpPending ? ', step-up pending' : ''}` },
      ...(state.factors ?? []).map((f, i) => ({ id: `factor-${f.credentialId ?? i}`, kind: `factor ${f.factor ?? ''}`.trim(), detail: `${f.name ?? ''}${f.credentialId ? ` ${f.credentialId}` : ''}`, factor: f })),
      ...(state.events ?? []).map((e, i) => ({ id: `event-${i}`, kind: 'event', detail: e.eventType, at: e.recordedAt })),
    ];
    return { rows, total: rows.length };
  },
  key: (r) => r.id,
  detail: async (_client, row) => [{ title: 'SCA', lines: fieldsOf(row) }],
};

/** Embedded-wallet authentication sessions of an account (`GET /auth/sessions`); revoke. */
interface SessionRow {
  id: string;
  accountId: string;
  type?: string;
  nickname?: string;
  createdAt?: string;
  expiresAt?: string;
  [key: string]: unknown;
}
const SESSION_KEYS = { account: 'accountId' };
export const walletSessionsView: ResourceView<SessionRow> = {
  id: 'wallet-sessions',
  title: 'Wallet sessions',
  filterHint: `${filterHintOf(SESSION_KEYS)} (an embedded wallet's internal account)`,
  columns: [
    { header: 'CREATED', width: 20, value: (s) => whenCell(s.createdAt) },
    { header: 'TYPE', width: 14, value: (s) => s.type ?? '' },
    { header: 'NICKNAME', width: 0, value: (s) => s.nickname ?? '' },
    { header: 'EXPIRES', width: 20, value: (s) => whenCell(s.expiresAt) },
    { header: 'ID', width: 9, value: (s) => shortId(s.id) },
  ],
  load: async (client, { filter }) => {
    const page = await client.api<{ data: SessionRow[] }>('GET', `/auth/sessions?${required(filter, SESSION_KEYS, "a wallet's sessions")}`);
    return { rows: page.data, total: page.data.length };
  },
  key: (s) => s.id,
  detail: async (_client, row) => [{ title: 'Session', lines: fieldsOf(row, ['encryptedSessionSigningKey']) }],
  actions: [
    {
      key: 'd',
      label: 'revoke the session (DELETE /auth/sessions/{id})',
      confirm: (s) => `Revoke session ${shortId(s.id)}?`,
      run: async (client, row) => {
        await client.api('DELETE', `/auth/sessions/${encodeURIComponent(row.id)}`);
        return `revoked ${shortId(row.id)}`;
      },
    },
  ],
};

/** A stablecoin as the contract returns it. */
interface StablecoinRow {
  id: string;
  name?: string;
  symbol?: string;
  network?: string;
  issuanceStatus?: string;
  serviceOperationsStatus?: string;
  provider?: string;
  createdAt?: string;
  [key: string]: unknown;
}
const operatorDecision = (key: string, status: 'ENABLING' | 'ENABLED' | 'DISABLED') => ({
  key,
  label: `operator: service operations ${status}`,
  run: async (client: Parameters<ResourceView['load']>[0], row: StablecoinRow) => {
    const coin = await client.control<StablecoinRow>('POST', `/stablecoins/${encodeURIComponent(row.id)}/service-operations-status`, { serviceOperationsStatus: status });
    return `${row.symbol ?? shortId(row.id)}: service operations ${coin.serviceOperationsStatus ?? status}`;
  },
});
export const stablecoinsView = contractListView<StablecoinRow>({
  id: 'stablecoins',
  title: 'Stablecoins',
  path: '/stablecoins',
  filters: { issuance: 'issuanceStatus', ops: 'serviceOperationsStatus', provider: 'provider' },
  idPrefix: 'Stablecoin',
  columns: [
    { header: 'NAME', width: 0, value: (s) => `${s.name ?? ''}${s.symbol ? ` (${s.symbol})` : ''}` },
    { header: 'NETWORK', width: 12, value: (s) => s.network ?? '' },
    { header: 'ISSUANCE', width: 14, value: (s) => s.issuanceStatus ?? '', color: (s) => statusColor(s.issuanceStatus) },
    { header: 'OPERATIONS', width: 14, value: (s) => s.serviceOperationsStatus ?? '', color: (s) => statusColor(s.serviceOperationsStatus) },
    { header: 'PROVIDER', width: 12, value: (s) => s.provider ?? '' },
    { header: 'ID', width: 9, value: (s) => shortId(s.id) },
  ],
  more: async (client, coin) => {
    const ops = await client.api<{ data: { id: string; operationType?: string; status?: string; createdAt?: string }[] }>('GET', `/stablecoins/${encodeURIComponent(coin.id)}/operations?limit=20`).catch(() => ({ data: [] }));
    return [{ title: `Operations (${ops.data.length})`, lines: ops.data.map((o) => `${o.id}  ${o.operationType ?? ''}  ${o.status ?? ''}  ${whenCell(o.createdAt)}`) }];
  },
  actions: [
    {
      key: 'r',
      label: 'request enablement (the platform asks the operator)',
      run: async (client, row) => {
        const coin = await client.control<StablecoinRow>('POST', `/stablecoins/${encodeURIComponent(row.id)}/request-enablement`);
        return `${row.symbol ?? shortId(row.id)}: ${coin.serviceOperationsStatus ?? 'requested'}`;
      },
    },
    operatorDecision('N', 'ENABLING'),
    operatorDecision('E', 'ENABLED'),
    operatorDecision('D', 'DISABLED'),
  ],
});

/** An UMA invitation (`GET /invitations/{code}`): the contract has no list, so `/ code=…` opens one. */
interface InvitationRow {
  code: string;
  status?: string;
  inviterUma?: string;
  inviteeUma?: string;
  firstName?: string;
  createdAt?: string;
  expiresAt?: string;
  [key: string]: unknown;
}
const INVITATION_KEYS = { code: 'code' };
export const invitationsView: ResourceView<InvitationRow> = {
  id: 'invitations',
  title: 'Invitations',
  filterHint: `${filterHintOf(INVITATION_KEYS)} (the contract finds invitations by code)`,
  columns: [
    { header: 'CODE', width: 14, value: (i) => i.code },
    { header: 'INVITER', width: 0, value: (i) => i.inviterUma ?? '' },
    { header: 'INVITEE', width: 24, value: (i) => i.inviteeUma ?? i.firstName ?? '' },
    { header: 'STATUS', width: 10, value: (i) => i.status ?? '', color: (i) => statusColor(i.status) },
    { header: 'EXPIRES', width: 20, value: (i) => whenCell(i.expiresAt) },
  ],
  load: async (client, { filter }) => {
    const code = required(filter, INVITATION_KEYS, 'an invitation').get('code')!;
    const invitation = await client.api<InvitationRow>('GET', `/invitations/${encodeURIComponent(code)}`);
    return { rows: [invitation], total: 1 };
  },
  key: (i) => i.code,
  detail: async (client, row) => [{ title: 'Invitation', lines: fieldsOf(await client.api<InvitationRow>('GET', `/invitations/${encodeURIComponent(row.code)}`)) }],
  forms: [
    {
      key: 'n',
      title: 'New invitation',
      fields: [
        { name: 'inviterUma', label: 'Inviter UMA', hint: "$name@domain of one of the platform's customers" },
        { name: 'firstName', label: 'First name', hint: 'optional' },
      ],
      submit: async (client, v) => {
        const created = await client.api<InvitationRow>('POST', '/invitations', { inviterUma: v.inviterUma ?? '', ...(v.firstName?.trim() ? { firstName: v.firstName.trim() } : {}) });
        return { message: `invitation ${created.code} (${created.status ?? ''}); / code=${created.code} shows it` };
      },
    },
  ],
  actions: [
    {
      key: 'c',
      label: 'cancel the invitation',
      confirm: (i) => `Cancel invitation ${i.code}?`,
      run: async (client, row) => {
        const i = await client.api<InvitationRow>('POST', `/invitations/${encodeURIComponent(row.code)}/cancel`);
        return `${row.code} is now ${i.status ?? 'cancelled'}`;
      },
    },
  ],
};

/** API tokens of the platform (secrets are never listed); revoke. */
interface TokenRow {
  id: string;
  name?: string;
  permissions?: string[];
  clientId?: string;
  createdAt?: string;
  [key: string]: unknown;
}
export const tokensView = contractListView<TokenRow>({
  id: 'tokens',
  title: 'API tokens',
  path: '/tokens',
  filters: { name: 'name', from: 'createdAfter', to: 'createdBefore' },
  idPrefix: 'Token',
  columns: [
    { header: 'NAME', width: 0, value: (t) => t.name ?? '' },
    { header: 'PERMISSIONS', width: 30, value: (t) => (t.permissions ?? []).join(',') },
    { header: 'CLIENT ID', width: 20, value: (t) => t.clientId ?? '' },
    { header: 'CREATED', width: 20, value: (t) => whenCell(t.createdAt) },
    { header: 'ID', width: 9, value: (t) => shortId(t.id) },
  ],
  actions: [
    {
      key: 'd',
      label: 'revoke the token (DELETE /tokens/{id})',
      confirm: (t) => `Revoke ${t.name ?? shortId(t.id)}? Clients using it stop working.`,
      run: async (client, row) => {
        await client.api('DELETE', `/tokens/${encodeURIComponent(row.id)}`);
        return `revoked ${row.name ?? shortId(row.id)}`;
      },
    },
  ],
});


