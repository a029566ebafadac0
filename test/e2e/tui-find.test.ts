import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { bin } from '../helpers/cli.js';
import { machineTool, tmuxOnSocket } from '../helpers/machine.js';
import { usdPayee } from '../helpers/sandbox.js';
import { seedCustomers } from '../helpers/seed-customers.js';

/**
 * Issue 27 in a real terminal (tmux): search in the sandbox over a seeded database, keys that
 * arrive in one write, filters that belong to their view, following a customer through its
 * records and back, a card simulation and an agent approval, a customer made through the form.
 * Speed is measured in bench/tui.mjs (1,000,000 customers); the bounds here are loose.
 */
const tmuxPath = machineTool('tmux', ['/usr/bin/tmux', '/usr/local/bin/tmux'], 'apt-get install -y tmux');
const socket = `sandbox-find-${process.pid}-${randomUUID().slice(0, 8)}`;
const tmux = tmuxOnSocket(tmuxPath, socket);
const AUTH = `Basic ${Buffer.from('sandbox-client-id:sandbox-client-secret').toString('base64')}`;
const demo = fileURLToPath(new URL('../../fixtures/demo.json', import.meta.url));
const dirs: string[] = [];
const sandboxes: ChildProcess[] = [];

afterAll(() => {
  if (tmuxPath) tmux('kill-server');
  for (const child of sandboxes) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A sandbox (the CLI) for every test of a describe: started once, stopped after the file. */
function startSandboxCli(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, FORCE_COLOR: '0' } });
  sandboxes.push(child);
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /ready at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`the sandbox exited ${code}: ${err}`)));
  });
}

const screen = (target: string) => tmux('capture-pane', '-p', '-t', target).stdout;

/** What a screen is waited for: a pattern, or a check that names itself (`cursorOn`). */
interface ScreenCheck {
  test(text: string): boolean;
  toString(): string;
}

/**
 * Polls the pane until every pattern shows at once (bounded), returning that screen. Tests wait on
 * what the screen says, never on a fixed time: a detail reads "loading..." first, and on a loaded
 * machine its rows arrive seconds after its title.
 */
async function shows(target: string, patterns: ScreenCheck | ScreenCheck[], timeoutMs = 20_000): Promise<string> {
  const all = Array.isArray(patterns) ? patterns : [patterns];
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = screen(target);
    if (all.every((pattern) => pattern.test(text))) return text;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the screen never showed ${all.filter((pattern) => !pattern.test(text)).join(' and ')} in ${timeoutMs} ms:\n${text}`);
}

/** The line the cursor is on in a detail (it starts with `>`). */
const cursorLine = (text: string) => text.split('\n').find((line) => line.startsWith('>')) ?? '';
/** The cursor's line matches `pattern` (for `shows`). */
const cursorOn = (pattern: RegExp): ScreenCheck => ({ test: (text: string) => pattern.test(cursorLine(text)), toString: () => `the cursor on ${pattern}` });

/**
 * Presses Tab in a detail until the cursor's line matches `pattern` (each Tab jumps to the next id).
 * Each Tab waits for the cursor to move before the next, so keys never run ahead of the screen; a
 * detail still loading has no cursor line to leave yet.
 */
async function tabTo(target: string, pattern: RegExp): Promise<string> {
  let line = cursorLine(await shows(target, cursorOn(/^>(?!loading)/)));
  for (let i = 0; i < 40; i += 1) {
    if (pattern.test(line)) return line;
    const before = line;
    tmux('send-keys', '-t', target, 'Tab');
    // A detail with one id keeps its line on Tab: after a bounded wait the loop goes on.
    const deadline = Date.now() + 3000;
    while ((line = cursorLine(screen(target))) === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no line matching ${pattern} reached with Tab:\n${screen(target)}`);
}

const keys = (target: string, ...names: string[]) => tmux('send-keys', '-t', target, ...names);
/** Text as one write to the terminal (a paste, a held key). */
const literal = (target: string, text: string) => tmux('send-keys', '-t', target, '-l', text);

function openUi(target: string, origin: string, width = 120, height = 40) {
  const command = `CI=true NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} ui --url ${origin} --client-id sandbox-client-id --client-secret sandbox-client-secret`;
  const started = tmux('new-session', '-d', '-s', target, '-x', String(width), '-y', String(height), command);
  expect(started.status, started.stderr).toBe(0);
}

async function call(origin: string, method: string, path: string, body?: unknown, auth = AUTH) {
  const res = await fetch(`${origin}${path.startsWith('/_sandbox') ? '' : '/2025-10-13'}${path}`, {
    method,
    headers: { Authorization: auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe.skipIf(!tmuxPath)('terminal UI over 1,000,000 customers (tmux)', () => {
  const COUNT = 1_000_000;
  let origin: string;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbx-find-'));
    dirs.push(dir);
    const file = join(dir, 'many.db');
    await (await startSandbox({ db: file })).close();
    seedCustomers(file, COUNT);
    origin = await startSandboxCli(['--port', '0', '--db', file, '--quiet']);
  }, 120_000);

  it('/ finds one customer in the sandbox at once, nothing loads afterwards; G and g reach the real end and start; 50 j in one write move 50 rows', async () => {
    openUi('many', origin);
    await shows('many', [/Customers 1\/1,000,000 newest first/, /> Seed Person 999999\s+INDIVIDUAL APPROVED\s+seed999999@example\.com/]);

    literal('many', 'j'.repeat(50));
    await shows('many', [/Customers 51\/1,000,000/, cursorOn(/^> Seed Person 999949 /)]);

    keys('many', 'G');
    await shows('many', [/Customers 1,000,000\/1,000,000/, cursorOn(/^> Seed Person 0 /)]);
    keys('many', 'k');
    await shows('many', [/Customers 999,999\/1,000,000/, cursorOn(/^> Seed Person 1 /)]);
    keys('many', 'g');
    await shows('many', /Customers 1\/1,000,000/);

    keys('many', '/');
    await shows('many', /\/ Customers \(name, email/);
    literal('many', 'Seed Person 543210');
    await shows('many', /Seed Person 543210_/);
    const started = Date.now();
    keys('many', 'Enter');
    await shows('many', /> Seed Person 543210 [\s\S]*Customers 1\/1 by matched text A-Z \[\/Seed Person 543210\]/, 10_000);
    // Loose: the benchmark measures it (under 200 ms at a million); here a loaded CI machine and polling.
    expect(Date.now() - started).toBeLessThan(3000);
    // By email, in another case: the same customer.
    keys('many', '/');
    await shows('many', /\/ Customers .*: Seed Person 543210_/);
    for (let i = 0; i < 'Seed Person 543210'.length; i += 1) keys('many', 'BSpace');
    literal('many', 'SEED777@');
    keys('many', 'Enter');
    await shows('many', /> Seed Person 777 [\s\S]*Customers 1\/1/);
    // Nothing keeps loading: the sandbox's request log shows no more search calls once the row is there.
    const logs = async () => (await call(origin, 'GET', '/_sandbox/logs?path=/_sandbox/search/customers&limit=1000')).body.data.length as number;
    const after = await logs();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await logs()).toBe(after);

    keys('many', 'Escape');
    await shows('many', /Customers 1\/1,000,000 newest first \| filter cleared/);
    keys('many', 'o');
    await shows('many', [/Customers 1\/1,000,000 oldest first/, cursorOn(/^> Seed Person 0 /)]);
    keys('many', 'q');
  }, 120_000);

  it('filters belong to their view: shown in its tab and count, not carried to the next view, Esc clears only its own', async () => {
    openUi('views', origin);
    await shows('views', /Customers 1\/1,000,000/);
    keys('views', '/');
    literal('views', 'Seed Person 42');
    keys('views', 'Enter');
    await shows('views', [/1 Customers \[Seed Person…\][\s\S]*Customers 1\/[\d,]+\+? by matched text A-Z \[\/Seed Person 42\]/, /> Seed Person 42 /]);

    keys('views', '2');
    await shows('views', /Accounts \d+\/\d+ oldest first \|/);
    expect(screen('views')).not.toMatch(/2 Accounts \[/);
    keys('views', '/');
    // The prompt starts empty: the customers' filter stayed with the customers.
    await shows('views', /\/ Accounts \(customer= currency= type=\): _/);
    literal('views', 'currency=EUR');
    keys('views', 'Enter');
    const eur = await shows('views', /2 Accounts \[currency=EUR\][\s\S]*Accounts 1\/\d+ oldest first \[\/currency=EUR\]/);
    const rows = eur.split('\n').filter((line) => /^[> ] platform /.test(line));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatch(/EUR\s+€[\d.,]+ EUR\s+\S+$/);

    keys('views', '1');
    await shows('views', /Customers 1\/[\d,]+\+? by matched text A-Z \[\/Seed Person 42\]/);
    keys('views', 'Escape');
    await shows('views', /Customers 1\/1,000,000 newest first \| filter cleared/);
    keys('views', 'Escape');
    await shows('views', /no filter to clear/);
    keys('views', '2');
    await shows('views', /Accounts 1\/\d+ oldest first \[\/currency=EUR\]/);
    keys('views', 'Escape');
    await shows('views', /Accounts 1\/\d+ oldest first \| filter cleared/);
    keys('views', 'q');
  }, 120_000);
});

describe.skipIf(!tmuxPath)('terminal UI over fixtures/demo.json (tmux)', () => {
  let origin: string;
  beforeAll(async () => {
    origin = await startSandboxCli(['--port', '0', '--memory', '--quiet', '--fixtures', demo]);
  }, 60_000);

  it('follows Jane Smith: customer -> transaction -> quote -> webhook event, and back with Backspace', async () => {
    openUi('thread', origin);
    await shows('thread', /Jane Smith/);
    keys('thread', '/');
    literal('thread', 'jane');
    keys('thread', 'Enter');
    await shows('thread', /> Jane Smith\s+INDIVIDUAL[\s\S]*Customers 1\/1/);
    keys('thread', 'Enter');
    await shows('thread', /Customers: Customer:\S+[\s\S]*Internal accounts \(3\)/);
    await shows('thread', /Quotes \(1\)/);
    // Her payout: an outgoing transaction, $50.00 USD.
    const payout = await tabTo('thread', /Transaction:\S+\s+OUTGOING/);
    expect(payout).toContain('$50.00 USD');
    const transaction = payout.match(/Transaction:\S+/)![0];
    keys('thread', 'Enter');
    await shows('thread', new RegExp(`Customers > Transactions: ${transaction}`));
    const quote = (await tabTo('thread', /quoteId\s+Quote:\S+/)).match(/Quote:\S+/)![0];
    keys('thread', 'Enter');
    await shows('thread', new RegExp(`Customers > Transactions > Quotes: ${quote}`));
    await shows('thread', /totalSendingAmount|sendingCurrency:/);
    const event = (await tabTo('thread', /Webhook:\S+/)).match(/Webhook:\S+/)![0];
    keys('thread', 'Enter');
    // The event (its type shows once its detail has loaded) names its resource: the quote's
    // transaction or the quote.
    await shows('thread', [
      new RegExp(`Customers > Transactions > Quotes > Webhooks: ${event}`),
      /OUTGOING_PAYMENT\.\w+|QUOTE\.\w+/,
      new RegExp(`resource\\s+(${transaction}|${quote})`),
    ]);

    keys('thread', 'BSpace');
    await shows('thread', new RegExp(`Customers > Transactions > Quotes: ${quote}`));
    keys('thread', 'BSpace');
    await shows('thread', new RegExp(`Customers > Transactions: ${transaction}`));
    keys('thread', 'BSpace');
    await shows('thread', /Customers: Customer:\S+  \(Enter opens/);
    keys('thread', 'Escape');
    await shows('thread', /> Jane Smith[\s\S]*Customers 1\/1/);
    keys('thread', 'q');
  }, 120_000);

  it('a card authorization from the UI (descriptor suffixes offered, 002 declines) and an agent approval from the UI', async () => {
    // A cardholder whose ids carry no magic suffix, with 100 USD, and a card.
    let customer: { id: string };
    let usd: string;
    for (;;) {
      customer = (await call(origin, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Carla Cardholder', birthDate: '1990-01-15', nationality: 'US', currencies: ['USD'] })).body;
      usd = (await call(origin, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data[0].id;
      if (!['001', '002', '003', '005'].includes(customer.id.slice(-3)) && !['002', '003'].includes(usd.slice(-3))) break;
    }
    expect((await call(origin, 'POST', `/sandbox/internal-accounts/${encodeURIComponent(usd)}/fund`, { amount: 10_000 })).status).toBe(200);
    const card = await call(origin, 'POST', '/cards', { cardholderId: customer.id, platformCardId: `tui-card-${randomUUID().slice(0, 6)}-100`, form: 'VIRTUAL', fundingSources: [usd] });
    expect(card.status, JSON.stringify(card.body)).toBe(201);

    openUi('cards', origin);
    await shows('cards', /Customers 1\//);
    keys('cards', '8');
    await shows('cards', /Carla Cardholder\s+\S+ •••• \d{4}\s+USD\s+ACTIVE/);
    keys('cards', '/');
    literal('cards', `holder=${customer.id}`);
    keys('cards', 'Enter');
    // The filtered list's own line (the unfiltered one also reads 1/1): its row is loaded.
    await shows('cards', /> \S+ \S+ \S+\s+Carla Cardholder[\s\S]*Cards 1\/1 newest first \[\/holder=/);
    keys('cards', 'A');
    const prompt = await shows('cards', /Authorize on .*: 12\.34 Coffee Shop_/);
    expect(prompt).toMatch(/002: declined INSUFFICIENT_FUNDS|Authorize on/);
    keys('cards', 'Enter');
    await shows('cards', /authorization \$12\.34 USD: APPROVED CardTransaction:\S+/);
    const cardTransactions = (await call(origin, 'GET', '/transactions?type=CARD&limit=100')).body.data as { id: string }[];
    expect(cardTransactions.length).toBe(1);
    // The help lists the suffixes' rule; a 002 descriptor declines.
    keys('cards', 'A');
    await shows('cards', /12\.34 Coffee Shop_/);
    for (let i = 0; i < '12.34 Coffee Shop'.length; i += 1) keys('cards', 'BSpace');
    literal('cards', '5.00 Shop 002');
    keys('cards', 'Enter');
    await shows('cards', /authorization \$5\.00 USD: DECLINED INSUFFICIENT_FUNDS/);
    keys('cards', 'f');
    await shows('cards', /•••• \d{4} is now FROZEN/);
    expect((await call(origin, 'GET', `/cards/${encodeURIComponent(card.body.id)}`)).body.state).toBe('FROZEN');
    keys('cards', 'q');

    // An agent whose payment above its threshold waits for approval.
    const payee = await call(origin, 'POST', '/customers/external-accounts', usdPayee(customer.id));
    expect(payee.status, JSON.stringify(payee.body)).toBe(201);
    const policy = {
      permissions: ['VIEW_TRANSACTIONS', 'CREATE_QUOTES', 'EXECUTE_QUOTES'],
      defaultExecutionMode: 'AUTO',
      spendingLimits: { currency: 'USD', perTransactionLimit: 1_000_00, dailyLimit: 5_000_00, monthlyLimit: 50_000_00 },
      approvalThresholds: { currency: 'USD', amount: 10_00 },
    };
    const agent = await call(origin, 'POST', '/agents', { name: 'Payroll agent', customerId: customer.id, policy });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const redeemed = await fetch(`${origin}/2025-10-13/agents/device-codes/${agent.body.deviceCode.code}/redeem`, { method: 'POST' });
    const token = ((await redeemed.json()) as { accessToken: string }).accessToken;
    const bearer = `Bearer ${token}`;
    const quote = await call(origin, 'POST', '/agents/me/quotes', { source: { sourceType: 'ACCOUNT', accountId: usd }, destination: { destinationType: 'ACCOUNT', accountId: payee.body.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 20_00 }, bearer);
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    const pending = await call(origin, 'POST', `/agents/me/quotes/${quote.body.id}/execute`, undefined, bearer);
    expect(pending.body.status).toBe('PENDING_APPROVAL');

    openUi('agents', origin);
    await shows('agents', /Customers 1\//);
    keys('agents', '9');
    await shows('agents', /Carla Cardholder\s+EXECUTE_QUOTE\s+\$20\.\d\d USD\s+PENDING_APPROVAL/);
    keys('agents', 'a');
    await shows('agents', /APPROVED/);
    expect((await call(origin, 'GET', `/agents/me/actions/${pending.body.id}`, undefined, bearer)).body.status).toBe('APPROVED');
    expect((await call(origin, 'GET', `/agents/approvals?agentId=${encodeURIComponent(agent.body.agent.id)}`)).body.data).toEqual([]);
    keys('agents', 'q');
  }, 120_000);

  it('n creates a customer through the form; the sandbox validation errors show beside their fields', async () => {
    openUi('form', origin);
    await shows('form', /Customers 1\//);
    keys('form', 'n');
    await shows('form', /New customer[\s\S]*> Type\s+< INDIVIDUAL >/);
    keys('form', 'Tab');
    literal('form', 'Formy McFormface');
    keys('form', 'Enter');
    literal('form', '1990-13-45');
    // Country (US), Email, Your id: Enter moves on; Enter on the last field sends the form.
    keys('form', 'Enter');
    keys('form', 'Enter');
    keys('form', 'Enter');
    keys('form', 'Enter');
    // The refusal beside its field, the refused field with the focus.
    await shows('form', [/Birth date\s+1990-13-45_?\s+! .+/, /failed: 400/, cursorOn(/^> Birth date/)]);
    expect((await call(origin, 'GET', `/_sandbox/search/customers?q=formy`)).body.data).toEqual([]);
    for (let i = 0; i < 10; i += 1) keys('form', 'BSpace');
    literal('form', '1990-01-15');
    for (let i = 0; i < 4; i += 1) keys('form', 'Enter');
    await shows('form', /created Formy McFormface Customer:\S+|Customers: Customer:\S+/);
    const found = (await call(origin, 'GET', `/_sandbox/search/customers?q=formy`)).body.data as { id: string; birthDate: string; nationality: string }[];
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ birthDate: '1990-01-15', nationality: 'US' });
    await shows('form', new RegExp(`Customers: ${found[0]!.id}`));
    keys('form', 'q');
  }, 120_000);
});
