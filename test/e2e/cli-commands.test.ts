import { createServer, type IncomingMessage } from 'node:http';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, run, runSync, startCli } from '../helpers/cli.js';

describe('CLI: unknown commands and help', () => {
  it('an unknown command is an error naming it, with the nearest commands, exit 2', () => {
    const listen = runSync(['listen']);
    expect(listen.status).toBe(2);
    expect(listen.stderr).toContain("unknown command 'listen'");
    expect(listen.stderr).toContain('webhooks listen');
    expect(listen.stderr).not.toContain('too many arguments');
    const tal = runSync(['webhooks', 'tal']);
    expect(tal.status).toBe(2);
    expect(tal.stderr).toContain("unknown command 'tal'");
    expect(tal.stderr).toContain('tail');
    const status = runSync(['status']);
    expect(status.status).toBe(2);
    expect(status.stderr).toContain("unknown command 'status'");
    const nested = runSync(['customers', 'lst']);
    expect(nested.status).toBe(2);
    expect(nested.stderr).toContain('(Did you mean list?)');
    const badFlag = runSync(['--no-such-flag']);
    expect(badFlag.status).toBe(2);
  });

  it('top-level help lists the start flags; every help screen ends with examples', () => {
    const help = runSync(['--help']);
    expect(help.status).toBe(0);
    for (const flag of ['--port', '--memory', '--db', '--webhook-url']) expect(help.stdout).toContain(flag);
    for (const command of ['exec', 'customers', 'fund', 'webhooks', 'kyc']) expect(help.stdout).toContain(command);
    for (const args of [['--help'], ['start', '--help'], ['exec', '--help'], ['webhooks', 'listen', '--help'], ['customers', 'create', '--help'], ['fund', '--help'], ['kyc', '--help']]) {
      const screen = runSync(args).stdout.trimEnd();
      const examples = screen.slice(screen.lastIndexOf('Examples:'));
      expect(screen.lastIndexOf('Examples:'), args.join(' ')).toBeGreaterThan(0);
      expect(examples.split('\n').filter((l) => l.trim().startsWith('$ ')).length, args.join(' ')).toBeGreaterThanOrEqual(2);
    }
  });

  it('--webhook-url is checked at start as PATCH /config checks it; the clock prints whole durations; clock reset', async () => {
    const bad = runSync(['--port', '0', '--memory', '--webhook-url', 'ftp://example.com/hooks']);
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--webhook-url ftp://example.com/hooks is not accepted');
    expect(bad.stdout).not.toContain('ready at');
    const { child, origin, output } = await startCli(['--port', '0', '--memory']);
    expect(output.stdout).not.toContain('.gitignore'); // in memory: nothing to ignore
    expect((await run(['clock', 'advance', '7m30s', '--url', origin])).status).toBe(0);
    const clock = await run(['clock', '--url', origin]);
    expect(clock.stdout).toMatch(/\(7m30s ahead of real time, \d+ pending jobs\)/);
    const reset = await run(['clock', 'reset', '--url', origin]);
    expect(reset.status, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/^sandbox clock is back at real time \d{4}-\S+Z \(it was 7m30s ahead\); \d+ pending jobs keep their due times\n$/);
    expect((await run(['clock', '--url', origin])).stdout).toMatch(/\(0s ahead of real time, \d+ pending jobs\)/);
    expect((await run(['clock', 'reset', '--url', origin])).stdout).toMatch(/^sandbox clock already follows real time: \d{4}-/);
    child.kill('SIGTERM');
  });

  it('the banner of a default file database suggests .gitignore', async () => {
    const { child, output } = await startCli(['--port', '0']);
    expect(output.stdout).toContain('add .service-sandbox/ to your .gitignore');
    child.kill('SIGTERM');
  });
});

describe('CLI: setup without curl', () => {
  it('customers create, kyc link, platforms create, config set webhook, external-accounts create, quotes create and execute', async () => {
    const { child, origin, output } = await startCli(['--port', '0', '--memory']);
    const url = ['--url', origin];

    const ada = await run(['customers', 'create', '--name', 'Ada Lovelace', '--platform-id', 'cust-42', '--currencies', 'USD,EUR', ...url]);
    expect(ada.status, ada.stderr).toBe(0);
    expect(ada.stdout).toMatch(/^created individual Customer:[0-9a-f-]{36} \(Ada Lovelace\), platformCustomerId cust-42, KYC APPROVED\n$/);
    const asJson = await run(['customers', 'create', '--name', 'Grace Hopper', '--json', '-', ...url], JSON.stringify({ platformCustomerId: 'grace', email: 'grace@example.com' }));
    expect(asJson.status, asJson.stderr).toBe(0);
    const grace = JSON.parse(asJson.stdout);
    expect(grace).toMatchObject({ customerType: 'INDIVIDUAL', fullName: 'Grace Hopper', platformCustomerId: 'grace', email: 'grace@example.com' });
    const dir = mkdtempSync(join(tmpdir(), 'sbx-json-'));
    writeFileSync(join(dir, 'acme.json'), JSON.stringify({ businessInfo: { registrationNumber: 'REG-77' } }));
    const acme = await run(['customers', 'create', '--business', '--name', 'Acme LLC', '--json', join(dir, 'acme.json'), ...url]);
    expect(acme.status, acme.stderr).toBe(0);
    expect(JSON.parse(acme.stdout).businessInfo).toMatchObject({ legalName: 'Acme LLC', registrationNumber: 'REG-77', country: 'US' });
    const invalid = await run(['customers', 'create', '--name', 'X Y', '--email', 'not-an-email', ...url]);
    expect(invalid.status).toBe(1);
    expect(invalid.stderr).toContain('400 INVALID_INPUT');
    expect(invalid.stderr).toContain('email');

    const link = await run(['kyc', 'link', 'cust-42', ...url]);
    expect(link.status, link.stderr).toBe(0);
    expect(link.stdout.trim()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hosted\/kyc\/\S+$/);
    expect((await fetch(link.stdout.trim(), { redirect: 'manual' })).status).toBe(303);

    const platform = await run(['platforms', 'create', 'acme-platform', 'acme-secret-123', '--unregulated', ...url]);
    expect(platform.status, platform.stderr).toBe(0);
    expect(platform.stdout).toContain('(unregulated)');
    const other = await run(['customers', 'list', '--client-id', 'acme-platform', '--client-secret', 'acme-secret-123', ...url]);
    expect(other.stdout).toContain('no customers');

    const hook = await run(['config', 'set', 'webhook', 'http://127.0.0.1:9/hooks', ...url]);
    expect(hook.stdout).toContain('webhookEndpoint is now http://127.0.0.1:9/hooks');
    expect((await api(origin, 'GET', '/2025-10-13/config')).body.webhookEndpoint).toBe('http://127.0.0.1:9/hooks');
    const badHook = await run(['config', 'set', 'webhook', 'nope', ...url]);
    expect(badHook.status).toBe(1);
    expect(badHook.stderr).toContain('webhookEndpoint');

    const account = await run(['external-accounts', 'create', '--customer', 'cust-42', '--account-number', '123456789', '--routing-number', '021000021', '--json', ...url]);
    expect(account.status, account.stderr).toBe(0);
    const external = JSON.parse(account.stdout);
    expect(external).toMatchObject({ currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', beneficiary: { fullName: 'Ada Lovelace' } } });
    const iban = await run(['external-accounts', 'create', '--customer', 'cust-42', '--iban', 'DE89 3704 0044 0532 0130 00', ...url]);
    expect(iban.status, iban.stderr).toBe(0);
    expect(iban.stdout).toMatch(/^created EUR_ACCOUNT ExternalAccount:\S+ \(EUR, /);
    const noRail = await run(['external-accounts', 'create', '--customer', 'cust-42', ...url]);
    expect(noRail.status).toBe(1);
    expect(noRail.stderr).toContain('say which account');

    expect((await run(['fund', 'cust-42', '100', 'USD', ...url])).status).toBe(0);
    const quote = await run(['quotes', 'create', '--from', 'cust-42', '--from-currency', 'USD', '--to', external.id, '--amount', '25', '--json', ...url]);
    expect(quote.status, quote.stderr).toBe(0);
    const q = JSON.parse(quote.stdout);
    expect(q).toMatchObject({ totalSendingAmount: 2500, sendingCurrency: { code: 'USD' } });
    const executed = await run(['quotes', 'execute', q.id, ...url]);
    expect(executed.status, executed.stderr).toBe(0);
    expect(executed.stdout).toMatch(new RegExp(`^quote ${q.id} \\w+: sends 25\\.00 USD`));
    const twice = await run(['quotes', 'execute', q.id, ...url]);
    expect(twice.status).toBe(1);
    expect(twice.stderr).toContain('409');
    expect((await run(['quotes', 'execute', 'nope', ...url])).stderr).toContain('they look like Quote:');

    // the request log: 4xx lines name the code and the first field; the CLI's own requests are marked
    const log = output.stdout;
    expect(log).toMatch(/POST\s+\/2025-10-13\/customers 400 INVALID_INPUT at email .*\(cli\)/);
    child.kill('SIGTERM');
  });
});

describe('CLI: webhooks trigger', () => {
  it('says when an event is queued behind a failing earlier event of the same resource', async () => {
    const failing = createServer((req: IncomingMessage, res) => {
      req.resume();
      res.writeHead(500).end('down');
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const port = (failing.address() as { port: number }).port;
    const { child, origin } = await startCli(['--port', '0', '--memory', '--quiet', '--webhook-url', `http://127.0.0.1:${port}/hooks`]);
    try {
      const customer = await api(origin, 'POST', '/2025-10-13/customers', { customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace' });
      // The customer's creation already produced a CUSTOMER.KYC_APPROVED, which the endpoint refuses.
      const first = await run(['webhooks', 'trigger', 'CUSTOMER.KYC_APPROVED', '--resource', customer.body.id, '--url', origin]);
      expect(first.status, first.stderr).toBe(0);
      const second = await run(['webhooks', 'trigger', 'CUSTOMER.KYC_APPROVED', '--resource', customer.body.id, '--url', origin]);
      expect(second.status, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/queued: events of Customer:\S+ are delivered in order, and the earlier CUSTOMER\.KYC_APPROVED Webhook:\S+ is RETRYING/);
    } finally {
      child.kill('SIGTERM');
      failing.close();
    }
  });
});
