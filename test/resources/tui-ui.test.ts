import chalk from 'chalk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createElement as h } from 'react';
import { render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { App, layoutColumns } from '../../src/tui/app.js';
import { SandboxClient } from '../../src/tui/client.js';
import { cell, colorsEnabled, fitColumns, formatMoney, parseDuration, parseMoney, relativeTime, statusColor } from '../../src/tui/format.js';
import { views } from '../../src/tui/views/index.js';
import { fieldsOf } from '../../src/tui/views/types.js';
import { euIndividual, type Api, useSandbox } from '../helpers/sandbox.js';

// Waits for screens up to 20 s each (see `see`).
vi.setConfig({ testTimeout: 60_000 });

const s = useSandbox();
const KEY = { down: '\u001B[B', up: '\u001B[A', enter: '\r', escape: '\u001B' };
const ANSI = /\u001B\[[0-9;]*m/g;

let receiver: Server;
let receiverUrl: string;
beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

const mounted: { unmount: () => void }[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) m.unmount();
});

/** Renders the UI for a platform; `frame()` is the last frame without colours. */
function mount(api: Api, props: { color?: boolean; onExit?: () => void } = {}) {
  const client = new SandboxClient({ url: s.sandbox.origin, clientId: api.clientId, clientSecret: api.clientSecret });
  const instance = render(h(App, { client, views, clockEveryMs: 300, color: props.color ?? false, onExit: props.onExit }));
  mounted.push(instance);
  const frame = () => (instance.lastFrame() ?? '').replace(ANSI, '');
  const press = async (...keys: string[]) => {
    for (const key of keys) {
      instance.stdin.write(key);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
  };
  const type = async (text: string) => press(...text.split(''));
  // A screen shows within milliseconds on a quiet machine; the ceiling is for a loaded CI runner,
  // where a change reached the screen after more than 8 s once.
  const see = async (pattern: string | RegExp | ((frame: string) => boolean), timeout = 20_000) => {
    const deadline = Date.now() + timeout;
    const test = (f: string) => (typeof pattern === 'string' ? f.includes(pattern) : pattern instanceof RegExp ? pattern.test(f) : pattern(f));
    while (!test(frame())) {
      if (Date.now() > deadline) throw new Error(`not on screen after ${timeout} ms: ${String(pattern)}\n${frame()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return frame();
  };
  return { instance, frame, press, type, see };
}

const createPerson = async (api: Api, fullName: string, extra: Record<string, unknown> = {}) =>
  (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName, birthDate: '1990-01-15', nationality: 'US', currencies: ['USD'], ...extra })).body as { id: string };

const statusOf = async (api: Api, id: string) => (await api.get(`/customers/${id}`)).body.kycStatus as string;

describe('terminal UI: customers', () => {
  it('lists customers, moves with j/k, and a/x/h decide KYC: on screen and in the API', async () => {
    const api = await s.api.newPlatform();
    await createPerson(api, 'First Person');
    // The 001 suffix: PENDING at creation, under review (an APPROVED customer is decided already).
    const second = await createPerson(api, 'Second Person001');
    const ui = mount(api);
    await ui.see('Second Person');
    // Newest first: the second customer is on top, selected.
    expect(ui.frame()).toMatch(/> Second Person001\s+INDIVIDUAL/);
    await ui.press('j');
    await ui.see(/> First Person\s+INDIVIDUAL/);
    await ui.press('k');
    await ui.see(/> Second Person001\s+INDIVIDUAL/);
    await ui.press('h');
    await ui.see(/Second Person001\s+INDIVIDUAL HOLD/);
    expect(await statusOf(api, second.id)).toBe('HOLD');
    await ui.press('a');
    await ui.see(/Second Person001\s+INDIVIDUAL APPROVED/);
    expect(await statusOf(api, second.id)).toBe('APPROVED');
    // A decision is final: a later reject is refused, in the UI as in the API.
    await ui.press('x');
    await ui.see(/failed: 409: Second Person001 is already APPROVED; a decision is final/);
    expect(await statusOf(api, second.id)).toBe('APPROVED');
    await ui.press('j');
    await ui.see(/> First Person\s+INDIVIDUAL/);
  });

  it('a customer created by another client appears live; Enter shows its detail, Esc goes back', async () => {
    const api = await s.api.newPlatform();
    const ui = mount(api);
    await ui.see('nothing yet');
    await ui.see('live |');
    const started = Date.now();
    const created = await createPerson(api, 'Live Arrival');
    await ui.see('Live Arrival');
    expect(Date.now() - started).toBeLessThan(1500);
    await ui.press(KEY.enter);
    await ui.see('Internal accounts (1)');
    expect(ui.frame()).toContain(created.id);
    await ui.press('G');
    await ui.see('Verifications (0)');
    await ui.press(KEY.escape);
    await ui.see(/> Live Arrival\s+INDIVIDUAL/);
  });

  it("Enter on an id in a detail opens that record (an internal account from its customer's detail); Backspace goes back", async () => {
    const api = await s.api.newPlatform();
    const customer = await createPerson(api, 'Thread Person');
    const account = ((await api.get(`/customers/internal-accounts?customerId=${customer.id}`)).body.data as { id: string }[])[0]!;
    await api.post(`/sandbox/internal-accounts/${account.id}/fund`, { amount: 1234 });
    const ui = mount(api);
    await ui.see('Thread Person');
    await ui.press(KEY.enter);
    await ui.see(`${account.id}  INTERNAL_FIAT  ACTIVE  $12.34 USD`);
    // Tab jumps from id to id: the customer's own, then its account.
    await ui.press('\t', '\t');
    await ui.see(`> ${account.id}`);
    await ui.press(KEY.enter);
    await ui.see(`Customers > Accounts: ${account.id}`);
    await ui.see('balance                    $12.34 USD');
    await ui.press('G');
    await ui.see('Latest transactions');
    await ui.see(/Transaction:\S+\s+INCOMING\s+COMPLETED\s+\$12\.34 USD/);
    await ui.press('\u007F');
    await ui.see(`Customers: ${customer.id}`);
    await ui.press(KEY.escape);
    await ui.see(/> Thread Person\s+INDIVIDUAL/);
  });

  it('/ filters the list and Esc clears it; w triggers the webhook of the selected customer', async () => {
    const api = await s.api.newPlatform();
    await createPerson(api, 'Alpha Person');
    await createPerson(api, 'Beta Person');
    const ui = mount(api);
    await ui.see('Beta Person');
    await ui.press('/');
    await ui.see('/ Customers');
    await ui.type('beta');
    await ui.press(KEY.enter);
    await ui.see('Customers 1/1 by matched text A-Z [/beta]');
    expect(ui.frame()).not.toContain('Alpha Person');
    // Each creation recorded a CUSTOMER.KYC_APPROVED already; `w` adds one more, for Beta.
    const approvedEvents = async () => (await api.get('/_sandbox/webhooks/deliveries?type=CUSTOMER.KYC_APPROVED')).body.data as unknown[];
    const before = (await approvedEvents()).length;
    await ui.press('w');
    await ui.see('triggered CUSTOMER.KYC_APPROVED');
    expect((await approvedEvents()).length).toBe(before + 1);
    await ui.press(KEY.escape);
    await ui.see('Alpha Person');
  });
});

describe('terminal UI: accounts, external accounts, transactions', () => {
  it('f funds the selected account with an amount in the currency units', async () => {
    const api = await s.api.newPlatform();
    const customer = await createPerson(api, 'Fund Me');
    const ui = mount(api);
    await ui.press('2');
    await ui.see('BALANCE');
    await ui.press('/');
    await ui.type(`customer=${customer.id}`);
    await ui.press(KEY.enter);
    await ui.see('Accounts 1/1');
    await ui.see(/Fund Me\s+INTERNAL_FIAT/);
    await ui.press('f');
    await ui.see('Fund');
    await ui.type('12.34');
    await ui.press(KEY.enter);
    await ui.see(/\$12\.34 USD\s+\$12\.34 USD/);
    const accounts = (await api.get(`/customers/internal-accounts?customerId=${customer.id}`)).body.data as { balance: { amount: number } }[];
    expect(accounts[0]!.balance.amount).toBe(1234);
    await ui.press('f');
    await ui.type('abc');
    await ui.press(KEY.enter);
    await ui.see('failed: "abc" is not an amount');
  });

  it('external accounts show status and beneficiary verification; w triggers EXTERNAL_ACCOUNT.STATUS_UPDATED', async () => {
    const api = await s.api.newPlatform();
    const customer = await createPerson(api, 'Bank Owner');
    const created = await api.post('/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT', accountNumber: '12345678901', routingNumber: '021000021', bankAccountType: 'CHECKING',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Bank Owner', countryOfResidence: 'US', phoneNumber: '+14155551234', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } },
      },
    });
    expect(created.status).toBe(201);
    const ui = mount(api);
    await ui.press('3');
    await ui.see(/Bank Owner\s+Bank Owner\s+USD\s+USD_ACCOUNT …8901\s+ACTIVE/);
    await ui.press('w');
    await ui.see('triggered EXTERNAL_ACCOUNT.STATUS_UPDATED');
  });

  it('transactions show status and amount; the detail has the timeline; w triggers the webhook of the status', async () => {
    const api = await s.api.newPlatform();
    const customer = await createPerson(api, 'Paid Person');
    const account = ((await api.get(`/customers/internal-accounts?customerId=${customer.id}`)).body.data as { id: string }[])[0]!;
    const ui = mount(api);
    await ui.press('4');
    await ui.see('nothing yet');
    await api.post(`/sandbox/internal-accounts/${account.id}/fund`, { amount: 4200 });
    await ui.see(/Paid Person\s+INCOMING\s+COMPLETED\s+\$42\.00 USD/);
    await ui.press(KEY.enter);
    await ui.see('receivedAmount             $42.00 USD');
    await ui.press('G');
    await ui.see('Webhook events (1)');
    await ui.see('INCOMING_PAYMENT.COMPLETED');
    await ui.press(KEY.escape);
    await ui.press('w');
    await ui.see('triggered INCOMING_PAYMENT.COMPLETED');
  });
});

describe('terminal UI: webhooks, clock and jobs, reset', () => {
  it('webhooks show deliveries live; r replays the selected one; the detail shows the signed body', async () => {
    const api = await s.api.newPlatform();
    await api.patch('/config', { webhookEndpoint: receiverUrl });
    const ui = mount(api);
    await ui.press('5');
    await ui.see('NEXT RETRY');
    await createPerson(api, 'Hooked Person', { fullName: 'Hooked Person' });
    await api.post('/_sandbox/webhooks/trigger', { type: 'TEST' });
    // Newest first: the triggered TEST (selected, on top), the customer's KYC_APPROVED, and the
    // TEST sent when the endpoint was set. Waiting for all three keeps the selection from moving
    // under the key (seeing the first TEST alone, r once replayed the KYC row that arrived above it).
    await ui.see(/^> .*TEST\s+DELIVERED\s+1 200(?=[\s\S]*CUSTOMER\.KYC_APPROVED\s+DELIVERED)(?=[\s\S]*TEST\s+DELIVERED\s+1 200)/m);
    await ui.press('r');
    await ui.see(/replayed \S+: 200 \(DELIVERED\)/);
    await ui.see(/TEST\s+DELIVERED\s+2 200/);
    await ui.press(KEY.enter);
    await ui.see('Signed body');
    expect(ui.frame()).toContain('"type": "TEST"');
  });

  it('the clock & jobs view lists pending jobs; + advances the clock and they run', async () => {
    const api = await s.api.newPlatform();
    const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Slow Payee', countryOfResidence: 'US', phoneNumber: '+14155551234', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } };
    const ui = mount(api);
    await ui.press('6');
    await ui.see('DUE (SANDBOX)');
    // A payout to a 003 account completes 6 minutes after execution: one pending job.
    const loaded = await api.post('/_sandbox/fixtures', {
      platforms: [
        {
          customers: [
            {
              ref: 'payer', customerType: 'INDIVIDUAL', fullName: 'Slow Payer', birthDate: '1990-01-15', nationality: 'US', currencies: ['USD'], balances: { USD: 10000 },
              externalAccounts: [{ ref: 'slow', currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '55554444003', routingNumber: '021000021', bankAccountType: 'CHECKING', beneficiary } }],
            },
          ],
          quotes: [{ source: { sourceType: 'ACCOUNT', accountId: '{{payer.USD}}' }, destination: { destinationType: 'ACCOUNT', accountId: '{{slow}}' }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000, execute: true }],
        },
      ],
    });
    expect(loaded.status).toBe(200);
    await ui.see('payout.step');
    await ui.press('+');
    await ui.see('Advance the clock by');
    await ui.type('10m');
    await ui.press(KEY.enter);
    await ui.see('clock advanced to');
    await ui.see('nothing yet');
    expect((await api.get('/_sandbox/jobs')).body.totalCount).toBe(0);
    expect(((await api.get('/transactions')).body.data as { type: string; status: string }[]).find((t) => t.type === 'OUTGOING')!.status).toBe('COMPLETED');
  });

  it('R resets the platform after a y (any other key cancels)', async () => {
    const api = await s.api.newPlatform();
    await createPerson(api, 'Doomed Person');
    const ui = mount(api);
    await ui.see('Doomed Person');
    await ui.press('R');
    await ui.see('Sure? (y/n)');
    await ui.press('n');
    await ui.see('cancelled');
    expect(ui.frame()).toContain('Doomed Person');
    await ui.press('R');
    await ui.press('y');
    await ui.see('nothing yet');
    expect((await api.get('/customers')).body.data).toEqual([]);
  });

  it('? shows the keys of every view; q quits', async () => {
    const api = await s.api.newPlatform();
    let exited = false;
    const ui = mount(api, { onExit: () => (exited = true) });
    await ui.see('? for help');
    await ui.press('?');
    await ui.see('Keys of Customers');
    expect(ui.frame()).toContain('approve KYC/KYB');
    expect(ui.frame()).toContain('New customer');
    expect(ui.frame()).not.toContain('fund');
    await ui.press('x');
    await ui.see('? for help');
    await ui.press('2', '?');
    await ui.see('Keys of Accounts');
    expect(ui.frame()).toContain('fund');
    expect(ui.frame()).not.toContain('approve KYC/KYB');
    await ui.press('x', '1');
    await ui.press('q');
    expect(exited).toBe(true);
  });
});

describe('terminal UI: large lists and terminal manners', () => {
  it('a long list is windowed: one page to open, more pages as the selection nears the end', async () => {
    const api = await s.api.newPlatform();
    const customers = Array.from({ length: 250 }, (_, i) => ({ customerType: 'INDIVIDUAL', fullName: `Bulk Person${String(i).padStart(3, '0')}`, birthDate: '1990-01-15', nationality: 'US', currencies: ['USD'] }));
    expect((await api.post('/_sandbox/fixtures', { platforms: [{ customers }] })).status).toBe(200);
    const ui = mount(api);
    await ui.see('Customers 1/250 newest first');
    expect(ui.frame().split('\n').length).toBeLessThanOrEqual(24);
    // G reaches the real end at once (the last page, read the other way).
    await ui.press('G');
    await ui.see('Customers 250/250');
    await ui.see(/> Bulk Person000/);
    await ui.press('k');
    await ui.see(/> Bulk Person001/);
    await ui.press('g');
    await ui.see('Customers 1/250');
    await ui.see(/> Bulk Person249/);
    await ui.press('o');
    await ui.see('Customers 1/250 oldest first');
    await ui.see(/> Bulk Person000/);
  });

  it('fits 80 columns and follows a resize; colours only without NO_COLOR', async () => {
    const api = await s.api.newPlatform();
    await createPerson(api, 'Narrow Person');
    const level = chalk.level;
    chalk.level = 1;
    try {
      const plain = mount(api, { color: false });
      await plain.see('Narrow Person');
      expect(plain.instance.lastFrame()).not.toMatch(/\u001B\[3[1-7]m/);
      const colored = mount(api, { color: true });
      await colored.see('Narrow Person');
      expect(colored.instance.lastFrame()).toMatch(/\u001B\[32mAPPROVED/);
      Object.defineProperty(colored.instance.stdout, 'columns', { get: () => 80 });
      colored.instance.stdout.emit('resize');
      await new Promise((resolve) => setTimeout(resolve, 100));
      await colored.press('j');
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const line of colored.frame().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
      // The widest view (accounts) shrinks its columns instead of wrapping.
      await colored.press('2');
      await colored.see(/platform\s+\S+\s+ACTIVE\s+\$0\.00 USD\s+\$0\.00 USD/);
      for (const line of colored.frame().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    } finally {
      chalk.level = level;
    }
    expect(colorsEnabled({ NO_COLOR: '1' })).toBe(false);
    expect(colorsEnabled({})).toBe(true);
  });
});

describe('terminal UI: the newer areas', () => {
  it('stablecoins: request enablement and the operator decisions; API tokens: revoke after a y; each through the sandbox', async () => {
    const api = await s.api.newPlatform();
    const key = () => ({ headers: { 'Idempotency-Key': crypto.randomUUID() } });
    expect((await api.post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: `brale-${crypto.randomUUID()}`, apiClientSecret: 'brale-secret' }, key())).status).toBe(201);
    const coin = (await api.post('/stablecoins', { providerTokenIdentifier: 'SBC', networkTokenIdentifier: `btkn-${crypto.randomUUID().slice(0, 8)}`, network: 'SPARK' }, key())).body;
    const token = (await api.post('/tokens', { name: 'ci-token', permissions: ['VIEW'] })).body;
    const ui = mount(api);
    await ui.see('Customers');
    // The view the status line names ("Stablecoins 0/0 newest first | ? for help"): there as soon
    // as the view is, before its rows load.
    const viewTitle = (frame: string) => [...frame.matchAll(/^(\S.*?) \d[\d,]*\/\d/gm)].at(-1)?.[1];
    // Tab past the numbered views, one Tab at a time: the next only once the last one's view is on
    // screen, so a slow render is not tabbed past (a loaded CI runner once was).
    const tabTo = async (title: string) => {
      for (let i = 0; i < 30 && viewTitle(ui.frame()) !== title; i += 1) {
        const before = viewTitle(ui.frame());
        await ui.press('\t');
        await ui.see((frame) => viewTitle(frame) !== before);
      }
      expect(viewTitle(ui.frame())).toBe(title);
    };
    await tabTo('Stablecoins');
    await ui.see('Stablecoins 1/1');
    await ui.see(/SPARK/);
    await ui.press('?');
    await ui.see('Keys of Stablecoins');
    expect(ui.frame()).toContain('operator: service operations ENABLED');
    await ui.press('x');
    await ui.press('r');
    await ui.see(/: (ENABLING|REQUESTED|PENDING\w*|requested)/);
    await ui.press('E');
    await ui.see('service operations ENABLED');
    expect((await api.get(`/stablecoins/${coin.id}`)).body.serviceOperationsStatus).toBe('ENABLED');
    await ui.press('D');
    await ui.see('service operations DISABLED');
    expect((await api.get(`/stablecoins/${coin.id}`)).body.serviceOperationsStatus).toBe('DISABLED');

    // SCA: a customer's factors, session and lockout, once the filter names the customer.
    const eu = (await api.post('/customers', euIndividual({ birthDate: '1990-01-15' }))).body;
    await tabTo('SCA');
    await ui.see("type / customer=… to see a customer's SCA state");
    await ui.press('/');
    await ui.type(`customer=${eu.id}`);
    await ui.press(KEY.enter);
    await ui.see(/session\s+none/);
    await ui.see(/lockout\s+not locked/);

    await tabTo('API tokens');
    await ui.see('API tokens 1/1');
    await ui.see(/ci-token\s+VIEW/);
    expect(ui.frame()).not.toContain(token.clientSecret);
    await ui.press('d');
    await ui.see('Revoke ci-token?');
    await ui.press('y');
    await ui.see('revoked ci-token');
    expect((await api.get(`/tokens/${token.id}`)).status).toBe(404);
  });
});

describe('terminal UI: NO_COLOR reaches the request log pane', () => {
  it('a log line written in colour shows without its colour codes when colours are off, and with them when on', async () => {
    const api = await s.api.newPlatform();
    const line = '\u001B[32m12:00:00.000 GET    /2025-10-13/customers 200\u001B[39m';
    const log = { lines: () => [line], subscribe: () => () => {} };
    const client = new SandboxClient({ url: s.sandbox.origin, clientId: api.clientId, clientSecret: api.clientSecret });
    const plain = render(h(App, { client, views, log, color: false }));
    mounted.push(plain);
    const colored = render(h(App, { client, views, log, color: true }));
    mounted.push(colored);
    const deadline = Date.now() + 10_000;
    while (!(plain.lastFrame() ?? '').includes('request log') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(plain.lastFrame()).toContain('12:00:00.000 GET    /2025-10-13/customers 200');
    expect(plain.lastFrame()).not.toMatch(/\u001B\[3\dm/);
    expect(colored.lastFrame()).toContain(line);
  });
});

describe('terminal UI: formatting', () => {
  it('formats and parses amounts, durations and cells', () => {
    expect(formatMoney({ amount: 123456789, currency: { code: 'USD', decimals: 2 } })).toBe('$1,234,567.89 USD');
    expect(formatMoney({ amount: 5000, currency: { code: 'USD', decimals: 2 } })).toBe('$50.00 USD');
    expect(formatMoney({ amount: 50_000_000, currency: { code: 'BTC', decimals: 8 } })).toBe('0.50000000 BTC');
    expect(formatMoney(5, 'BTC')).toBe('0.00000005 BTC');
    expect(formatMoney({ amount: -75000, currency: { code: 'EUR', decimals: 2 } })).toBe('-€750.00 EUR');
    // A detail's bare amounts read in the currency beside them (a quote's totals and fees).
    const usd = { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 };
    const btc = { code: 'BTC', name: 'Bitcoin', symbol: '', decimals: 8 };
    const lines = fieldsOf({ sendingCurrency: usd, receivingCurrency: btc, totalSendingAmount: 5000, totalReceivingAmount: 50_000_000, feesIncluded: 50, exchangeRate: 1 });
    expect(lines).toContain(`${'totalSendingAmount'.padEnd(26)} $50.00 USD`);
    expect(lines).toContain(`${'totalReceivingAmount'.padEnd(26)} 0.50000000 BTC`);
    expect(lines).toContain(`${'feesIncluded'.padEnd(26)} $0.50 USD`);
    expect(lines).toContain(`${'exchangeRate'.padEnd(26)} 1`);
    expect(parseMoney('1,000.5', 2)).toBe(100050);
    expect(() => parseMoney('1.234', 2)).toThrow(/decimals/);
    expect(parseDuration('1h30m')).toBe(5400);
    expect(() => parseDuration('soon')).toThrow(/not a duration/);
    expect(cell('abcdef', 4)).toBe('abc…');
    expect(cell('ab', 4, 'right')).toBe('  ab');
    expect(statusColor('APPROVED')).toBe('green');
    expect(statusColor('REJECTED')).toBe('red');
    for (const width of [80, 100, 200]) {
      const widths = layoutColumns([14, 14, 0, 7, 18, 18], width);
      expect(widths.reduce((sum, w) => sum + w, 0) + 2 + 5).toBeLessThanOrEqual(width);
      expect(widths[2]).toBeGreaterThanOrEqual(8);
    }
    expect(layoutColumns([10, 0], 100)).toEqual([10, 87]);
    // Sized to content: a short name column does not take half the screen; a narrow terminal cuts the widest first.
    expect(fitColumns([10, 8, 20], [true, false, false], 80)).toEqual([48, 8, 20]);
    const narrow = fitColumns([40, 8, 30], [true, false, false], 60);
    expect(narrow.reduce((sum, w) => sum + w, 0)).toBeLessThanOrEqual(60 - 2 - 2);
    expect(narrow[1]).toBe(8);
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(relativeTime('2026-01-01T11:55:00Z', now)).toBe('5m ago');
    expect(relativeTime('2026-01-01T14:00:00Z', now)).toBe('in 2h');
    expect(relativeTime('2026-01-01T12:00:02Z', now)).toBe('now');
  });
});

describe('terminal UI: platforms', () => {
  it('P switches to another platform (bad credentials are refused and the view stays)', async () => {
    const { Root } = await import('../../src/tui/app.js');
    const first = await s.api.newPlatform();
    const second = await s.api.newPlatform();
    await createPerson(first, 'On First Platform');
    await createPerson(second, 'On Second Platform');
    const instance = render(h(Root, { connection: { url: s.sandbox.origin, clientId: first.clientId, clientSecret: first.clientSecret }, views, color: false, clockEveryMs: 300 }));
    mounted.push(instance);
    const frame = () => (instance.lastFrame() ?? '').replace(ANSI, '');
    const until = async (text: string) => {
      const deadline = Date.now() + 20_000;
      while (!frame().includes(text)) {
        if (Date.now() > deadline) throw new Error(`not on screen: ${text}\n${frame()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const type = async (text: string) => {
      for (const ch of text) {
        instance.stdin.write(ch);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    await until('On First Platform');
    await type('P');
    await until('Switch to platform');
    await type(`${second.clientId}:wrong-secret`);
    instance.stdin.write(KEY.enter);
    await until('failed: 401');
    expect(frame()).toContain('On First Platform');
    await type('P');
    await type(`${second.clientId}:${second.clientSecret}`);
    instance.stdin.write(KEY.enter);
    await until('On Second Platform');
    expect(frame()).toContain(second.clientId);
    expect(frame()).not.toContain('On First Platform');
  });
});
