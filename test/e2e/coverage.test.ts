import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { run, startCli } from '../helpers/cli.js';

/**
 * `exec --coverage`, `--coverage-junit` and `--require` around a small suite, and the `coverage`
 * command against a running sandbox. The suite is a script run by exec: what it exercises is
 * known exactly, so the report must list exactly that.
 */

const SUITE = `
const base = process.env.SERVICE_SANDBOX_BASE_URL;
const auth = 'Basic ' + Buffer.from(process.env.SERVICE_SANDBOX_CLIENT_ID + ':' + process.env.SERVICE_SANDBOX_CLIENT_SECRET).toString('base64');
const call = async (method, path, body) => {
  const res = await fetch(base + path, { method, headers: { Authorization: auth, ...(body === undefined || body instanceof FormData ? {} : { 'Content-Type': 'application/json' }) }, body: body === undefined || body instanceof FormData ? body : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
};
const expect = (what, got, want) => { if (got !== want) { console.error(what, got, 'expected', want); process.exit(9); } };
const customer = await call('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace001', currencies: ['USD'] });
expect('customer', customer.status, 201);
expect('bad customer', (await call('POST', '/customers', { customerType: 'NOPE' })).status, 400);
expect('config', (await call('GET', '/config')).status, 200);
const form = new FormData();
for (const [key, value] of Object.entries({ documentHolder: customer.body.id, documentType: 'PASSPORT', country: 'US', documentNumber: 'X1234567', issuingAuthority: 'U.S. Department of State' })) form.append(key, value);
form.append('file', new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10])], { type: 'image/jpeg' }), 'passport-425.jpg');
const rejected = await call('POST', '/documents', form);
expect('document', rejected.status, 422);
expect('reason', rejected.body.details.reason, 'SUSPECTED_FRAUD');
process.exit(Number(process.argv[2] ?? 0));
`;

function workspace(): { dir: string; suite: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sbx-coverage-'));
  const suite = join(dir, 'suite.mjs');
  writeFileSync(suite, SUITE);
  return { dir, suite };
}

const xsd = readFileSync(new URL('../fixtures/junit/junit-10.xsd', import.meta.url), 'utf8');
const validJunit = async (xml: string) => {
  const result = await validateXML({ xml: { fileName: 'coverage.xml', contents: xml }, schema: { fileName: 'junit-10.xsd', contents: xsd } });
  return result.errors.map((error) => error.message);
};

const exercisedOf = (report: { operations: { operationId: string; calls: number; statuses: Record<string, number> }[]; rules: { id: string; hits: number }[]; webhooks: { type: string; delivered: number }[] }) => ({
  operations: Object.fromEntries(report.operations.filter((op) => op.calls > 0).map((op) => [op.operationId, op.statuses])),
  rules: report.rules.filter((rule) => rule.hits > 0).map((rule) => rule.id),
  webhooks: report.webhooks.filter((w) => w.delivered > 0).map((w) => w.type),
});

describe('exec --coverage', () => {
  it('writes JSON with exactly what the suite exercised, a Markdown summary beside it, and JUnit XML that validates against the JUnit schema', async () => {
    const { dir, suite } = workspace();
    const json = join(dir, 'out', 'coverage.json');
    const junit = join(dir, 'out', 'coverage.xml');
    const result = await run(['exec', '--coverage', json, '--coverage-junit', junit, '--', process.execPath, suite]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(`coverage operations 3/153, rules 2/`);
    expect(result.stderr).toContain(`written to ${json}, ${join(dir, 'out', 'coverage.md')}, ${junit}`);

    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.scope).toBe('run');
    expect(exercisedOf(report)).toEqual({
      operations: { createCustomer: { 201: 1, 400: 1 }, getPlatformConfig: { 200: 1 }, uploadDocument: { 422: 1 } },
      rules: ['customers.individual-name.001', 'documents.file-name.425'],
      webhooks: [],
    });
    expect(report.operations).toHaveLength(153);

    const markdown = readFileSync(join(dir, 'out', 'coverage.md'), 'utf8');
    expect(markdown).toContain('| Operations called | 3 | 153 | 2.0 % |');
    expect(markdown).toMatch(/\| Customers \| 1\/\d+ \| `listCustomers`/);

    const xml = readFileSync(junit, 'utf8');
    expect(await validJunit(xml)).toEqual([]);
    // One test case per rule, per operation and per webhook type; covered ones pass, the rest are skipped.
    expect(xml.match(/<testcase /g)).toHaveLength(report.rules.length + 153 + report.webhooks.length);
    expect(xml).toMatch(/<testcase classname="service-sandbox.rules.customers" name="documents.file-name.425">\s*<system-out>/);
    expect(xml).toMatch(/<testcase classname="service-sandbox.rules.payouts" name="payouts.suffix.002">\s*<skipped message="not exercised by this run"\/>/);
    expect(xml).not.toContain('<failure');
    // The schema does reject what it should (the check cannot pass by accident).
    expect(await validJunit(xml.replace(/ name="payouts.suffix.002"/, ''))).not.toEqual([]);
  });

  it('a readiness profile with one rule left untested makes exec exit non-zero and name it; the JUnit case of it fails', async () => {
    const { dir, suite } = workspace();
    const profile = join(dir, 'profile.yaml');
    writeFileSync(profile, ['name: small', 'operations: [createCustomer, "createCustomer:400", uploadDocument]', 'rules:', '  - customers.individual-name.001', '  - documents.file-name.425', '  - payouts.suffix.002', ''].join('\n'));
    const junit = join(dir, 'coverage.xml');
    const notReady = await run(['exec', '--require', profile, '--coverage-junit', junit, '--', process.execPath, suite]);
    expect(notReady.status).toBe(1);
    expect(notReady.stderr).toContain('not ready (profile small): 1 of 6 required items not covered:\n  rule payouts.suffix.002\n');
    const xml = readFileSync(junit, 'utf8');
    expect(await validJunit(xml)).toEqual([]);
    expect(xml).toMatch(/name="payouts.suffix.002">\s*<failure type="NotCovered" message="required by readiness profile small, not covered: rule payouts.suffix.002">/);
    expect(xml.match(/<failure /g)).toHaveLength(1);

    // Covered, the same profile passes; the command's own failure wins over readiness.
    writeFileSync(profile, readFileSync(profile, 'utf8').replace('  - payouts.suffix.002\n', ''));
    const ready = await run(['exec', '--require', profile, '--', process.execPath, suite]);
    expect(ready.status, ready.stderr).toBe(0);
    expect(ready.stderr).toContain('ready (profile small): all 5 required items covered');
    const failing = await run(['exec', '--require', profile, '--', process.execPath, suite, '3']);
    expect(failing.status).toBe(3);
  });

  it('refuses a profile naming what the sandbox does not know before running the command; the shipped payouts profile loads by name', async () => {
    const { dir, suite } = workspace();
    const profile = join(dir, 'typo.json');
    writeFileSync(profile, JSON.stringify({ rules: ['payouts.sufix.002'], operations: ['createQuote:299'], webhooks: ['OUTGOING_PAYMENT.DONE'] }));
    const marker = join(dir, 'ran');
    const typo = await run(['exec', '--require', profile, '--', process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('names what this sandbox does not know: operation createQuote:299 (it declares');
    expect(typo.stderr).toContain('rule payouts.sufix.002; webhook OUTGOING_PAYMENT.DONE');
    expect(() => readFileSync(marker)).toThrow();
    const missing = await run(['exec', '--require', join(dir, 'nope.yaml'), '--', process.execPath, suite]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('readiness profile');

    const payouts = await run(['exec', '--require', 'payouts', '--', process.execPath, suite]);
    expect(payouts.status).toBe(1);
    expect(payouts.stderr).toMatch(/not ready \(profile payouts\): \d+ of \d+ required items not covered:\n {2}operation getCustomerById\n/);
    expect(payouts.stderr).toContain('  rule payouts.suffix.007\n');
    expect(payouts.stderr).toContain('  webhook OUTGOING_PAYMENT.COMPLETED:retried\n');
  });
});

describe('service-sandbox coverage', () => {
  it("prints the platform's coverage as a table grouped by area, as JSON or Markdown, and checks a profile", async () => {
    const { origin } = await startCli();
    const env = { SERVICE_SANDBOX_URL: origin };
    const { suite } = workspace();
    // The suite against this sandbox (exec would start its own).
    const { spawnSync } = await import('node:child_process');
    const ran = spawnSync(process.execPath, [suite], {
      env: { ...process.env, SERVICE_SANDBOX_BASE_URL: `${origin}/2025-10-13`, SERVICE_SANDBOX_CLIENT_ID: 'sandbox-client-id', SERVICE_SANDBOX_CLIENT_SECRET: 'sandbox-client-secret' },
      encoding: 'utf8',
    });
    expect(ran.status, ran.stderr).toBe(0);
    const cli = (...args: string[]) => run([...args, '--url', env.SERVICE_SANDBOX_URL]);

    const table = await cli('coverage');
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toContain('Integration coverage of sandbox-client-id since its last reset');
    expect(table.stdout).toMatch(/operations {2}3\/153 called/);
    expect(table.stdout).toMatch(/ {2}Customers {2}1\/\d+\n {4}✗ listCustomers +GET \/customers\n {4}✓ createCustomer +POST \/customers +201×1 400×1\n/);
    expect(table.stdout).toMatch(/✓ documents\.file-name\.425 +×1 +Document file name ending 425/);
    expect(table.stdout).toMatch(/✗ TEST +never delivered/);

    const uncovered = await cli('coverage', '--uncovered');
    expect(uncovered.stdout).not.toMatch(/^ {4}✓/m);
    expect(uncovered.stdout).toContain('✗ payouts.suffix.002');

    const json = JSON.parse((await cli('coverage', '--json')).stdout);
    expect(exercisedOf(json).rules).toEqual(['customers.individual-name.001', 'documents.file-name.425']);
    expect((await cli('coverage', '--markdown')).stdout).toContain('### Integration coverage (service-sandbox)');

    const profile = await cli('coverage', '--require', 'payouts');
    expect(profile.status).toBe(1);
    expect(profile.stdout).toContain('Readiness (profile payouts): not ready');
    expect(profile.stderr).toContain('not ready (profile payouts)');

    expect((await cli('reset')).status).toBe(0);
    expect(JSON.parse((await cli('coverage', '--json')).stdout).summary.operations.covered).toBe(0);
  });
});
