import { formatMoney, shortId, statusColor, whenCell } from '../format.js';
import { customerCell } from '../names.js';
import { contractListView, fieldsOf } from './types.js';

/** An agent action as `GET /agents/approvals` returns it. */
export interface AgentActionRow {
  id: string;
  agentId: string;
  customerId?: string;
  status: string;
  type: string;
  quote?: { totalSendingAmount?: number; sendingCurrency?: { code: string; decimals?: number } };
  transferDetails?: { amount?: number; currency?: string };
  createdAt?: string;
  [key: string]: unknown;
}

const amountOf = (a: AgentActionRow) =>
  a.quote?.sendingCurrency && a.quote.totalSendingAmount !== undefined
    ? formatMoney({ amount: a.quote.totalSendingAmount, currency: a.quote.sendingCurrency })
    : a.transferDetails?.amount !== undefined
      ? formatMoney(a.transferDetails.amount, a.transferDetails.currency)
      : '';

/** Agents' pending approvals: approve or reject each (the contract's approve/reject calls). */
export const approvalsView = {
  ...contractListView<AgentActionRow>({
    id: 'approvals',
    title: 'Agent approvals',
    path: '/agents/approvals',
    filters: { agent: 'agentId', customer: 'customerId', from: 'startDate', to: 'endDate' },
    sortOrder: true,
    idPrefix: 'AgentAction',
    columns: [
      { header: 'ASKED', width: 20, value: (a) => whenCell(a.createdAt) },
      { header: 'CUSTOMER', width: 0, value: (a, client) => customerCell(client, a.customerId, '') },
      { header: 'TYPE', width: 16, value: (a) => a.type },
      { header: 'AMOUNT', width: 22, value: amountOf, align: 'right' },
      { header: 'STATUS', width: 17, value: (a) => a.status, color: (a) => statusColor(a.status) },
      { header: 'AGENT', width: 9, value: (a) => shortId(a.agentId) },
    ],
    actions: [
      {
        key: 'a',
        label: 'approve (executes it)',
        run: async (client, row) => {
          const action = await client.api<AgentActionRow>('POST', `/agents/${encodeURIComponent(row.agentId)}/actions/${encodeURIComponent(row.id)}/approve`, {});
          return `${shortId(row.id)} ${action.status}`;
        },
      },
      {
        key: 'x',
        label: 'reject (prompts for a reason)',
        prompt: () => 'Reason for rejecting',
        run: async (client, row, input) => {
          const action = await client.api<AgentActionRow>('POST', `/agents/${encodeURIComponent(row.agentId)}/actions/${encodeURIComponent(row.id)}/reject`, input?.trim() ? { reason: input.trim() } : {});
          return `${shortId(row.id)} ${action.status}`;
        },
      },
    ],
  }),
  // An action has no GET of its own for the platform: found among the waiting ones.
  fetch: async (client: import('../client.js').SandboxClient, id: string) => {
    let cursor: string | undefined;
    for (let pages = 0; pages < 20; pages += 1) {
      const page = await client.api<{ data: AgentActionRow[]; nextCursor?: string; hasMore?: boolean }>('GET', `/agents/approvals?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      const found = page.data.find((a) => a.id === id);
      if (found) return found;
      if (!page.hasMore || !page.nextCursor) break;
      cursor = page.nextCursor;
    }
    throw new Error(`${id} is not waiting for approval`);
  },
  detail: async (_client: unknown, row: AgentActionRow) => [{ title: 'Agent action', lines: fieldsOf(row) }],
};

/** An agent as the contract returns it. */
export interface AgentRow {
  id: string;
  name?: string;
  customerId?: string;
  isPaused?: boolean;
  isConnected?: boolean;
  createdAt?: string;
  [key: string]: unknown;
}

/** Agents: name, customer, paused or not, connected or not; pause and resume. */
export const agentsView = contractListView<AgentRow>({
  id: 'agents',
  title: 'Agents',
  path: '/agents',
  filters: { customer: 'customerId', paused: 'isPaused', connected: 'isConnected' },
  idPrefix: 'Agent',
  columns: [
    { header: 'NAME', width: 0, value: (a) => a.name ?? '' },
    { header: 'CUSTOMER', width: 24, value: (a, client) => customerCell(client, a.customerId, '') },
    { header: 'STATE', width: 8, value: (a) => (a.isPaused ? 'PAUSED' : 'ACTIVE'), color: (a) => statusColor(a.isPaused ? 'FROZEN' : 'ACTIVE') },
    { header: 'CONNECTED', width: 9, value: (a) => (a.isConnected ? 'yes' : 'no') },
    { header: 'CREATED', width: 20, value: (a) => whenCell(a.createdAt) },
    { header: 'ID', width: 9, value: (a) => shortId(a.id) },
  ],
  more: async (client, agent) => {
    const pending = await client.api<{ data: AgentActionRow[] }>('GET', `/agents/approvals?agentId=${encodeURIComponent(agent.id)}&limit=50`).catch(() => ({ data: [] }));
    return [{ title: `Pending approvals (${pending.data.length})`, lines: pending.data.map((a) => `${a.id}  ${a.type}  ${amountOf(a)}  ${a.status}`) }];
  },
  actions: [
    {
      key: 'p',
      label: 'pause / resume',
      run: async (client, row) => {
        const agent = await client.api<AgentRow>('PATCH', `/agents/${encodeURIComponent(row.id)}`, { isPaused: !row.isPaused });
        return `${agent.name ?? shortId(row.id)} is now ${agent.isPaused ? 'paused' : 'active'}`;
      },
    },
  ],
});
