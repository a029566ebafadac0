import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineTool } from '../helpers/machine.js';
import { unique, useSandbox, type Api } from '../helpers/sandbox.js';

// The hosted KYC page in a real headless Chromium (Debian's package; `.ci/run` installs it).
const CHROMIUM = machineTool('Chromium', ['/usr/bin/chromium'], 'apt-get install -y chromium');
const s = useSandbox();
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  if (!CHROMIUM) return;
  profile = mkdtempSync(join(tmpdir(), 'sbx-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM!,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const PDF = { name: 'document.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%%EOF\n') };

/** What a person types into each field the page may ask for. */
const ANSWERS: Record<string, string> = {
  fullName: 'Jane Doe001',
  birthDate: '1990-01-31',
  nationality: 'US',
  email: 'jane@example.com',
  phoneNumber: '+12065550100',
  idType: 'SSN',
  identifier: '123-45-6789',
  countryOfIssuance: 'US',
  'address.line1': '1 Main St',
  'address.line2': 'Suite 2',
  'address.city': 'Seattle',
  'address.state': 'WA',
  'address.postalCode': '98101',
  'address.country': 'US',
};

async function openLink(api: Api, customerId: string): Promise<Page> {
  const link = await api.post(`/customers/${customerId}/kyc-link`);
  expect(link.status).toBe(201);
  const page = await browser.newPage();
  await page.goto(link.body.kycUrl);
  return page;
}

/** Fills every field of the "Your details" form with the answers and saves it. */
async function fillDetails(page: Page, overrides: Record<string, string> = {}, expectSaved = true): Promise<void> {
  const form = page.locator('form[action$="/fields"]');
  if ((await form.count()) === 0) return;
  for (const name of await form.locator('[name]').evaluateAll((els) => els.map((e) => (e as unknown as { name: string }).name))) {
    const answer = overrides[name] ?? ANSWERS[name];
    expect(answer, `the page asks for ${name}`).toBeDefined();
    const field = form.locator(`[name="${name}"]`);
    if ((await field.evaluate((e) => (e as unknown as { tagName: string }).tagName)) === 'SELECT') await field.selectOption(answer!);
    else await field.fill(answer!);
  }
  await form.getByRole('button', { name: 'Save details' }).click();
  if (expectSaved) await expect.poll(() => page.locator('.note').textContent()).toContain('Details saved');
}

async function upload(page: Page, holder: string, documentType: string, extra: { documentNumber?: string; issuingAuthority?: string } = {}): Promise<void> {
  const form = page.locator('form[action$="/documents"]');
  await form.locator('select[name="documentHolder"]').selectOption({ label: holder });
  await form.getByLabel('Document type').selectOption(documentType);
  await form.getByLabel('Issuing country').selectOption('US');
  if (extra.documentNumber) await form.getByLabel('Document number').fill(extra.documentNumber);
  if (extra.issuingAuthority) await form.getByLabel('Issuing authority').fill(extra.issuingAuthority);
  await form.locator('input[type=file]').setInputFiles(PDF);
  await form.getByRole('button', { name: 'Upload' }).click();
  await expect.poll(() => page.locator('.note').textContent()).toContain('Document uploaded');
}

describe.skipIf(!CHROMIUM)('hosted KYC page in headless Chromium', () => {
  it('a 001 individual: details and a passport from the page, submitted to manual review, approved by the reviewer button', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const created = await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Doe001', platformCustomerId: unique('jane') });
    const id = created.body.id as string;
    const page = await openLink(api, id);
    expect(await page.locator('#status').textContent()).toBe(created.body.kycStatus);
    // what a submission needs is on the page before any submission, in words
    const gaps = await page.locator('#gaps').textContent();
    expect(gaps).toContain('Date of birth');
    expect(gaps).toMatch(/Missing identity document/i);
    await fillDetails(page);
    await fillDetails(page); // a US national is then asked for an SSN or ITIN
    // a passport without its number: the error names the fields in words, and the choices stay
    const docs = page.locator('form[action$="/documents"]');
    await docs.getByLabel('Document type').selectOption('PASSPORT');
    await docs.getByLabel('Issuing country').selectOption('US');
    await docs.getByLabel('Issuing authority').fill('U.S. Department of State');
    await docs.locator('input[type=file]').setInputFiles(PDF);
    await docs.getByRole('button', { name: 'Upload' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.count()).toBe(1);
    expect(await alert.textContent()).toMatch(/Document number/);
    expect(await docs.getByLabel('Document type').inputValue()).toBe('PASSPORT');
    expect(await docs.getByLabel('Issuing country').inputValue()).toBe('US');
    expect(await docs.getByLabel('Issuing authority').inputValue()).toBe('U.S. Department of State');

    await upload(page, 'Jane Doe001', 'PASSPORT', { documentNumber: 'X1234567', issuingAuthority: 'U.S. Department of State' });
    expect(await page.locator('#documents').textContent()).toMatch(/Passport.*document\.pdf.*Received/s);
    await page.getByRole('button', { name: 'Submit for verification' }).click();
    await expect.poll(() => page.locator('.note').textContent()).toContain('PENDING_MANUAL_REVIEW');
    expect(await page.locator('#documents').textContent()).toContain('Under review');
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('APPROVED');
    expect((await api.get(`/customers/${id}`)).body.kycStatus).toBe('APPROVED');
    const verifications = (await api.get(`/verifications?customerId=${encodeURIComponent(id)}`)).body.data;
    expect(verifications.at(-1).verificationStatus).toBe('APPROVED');
    await page.close();
  });

  it('a 003 business: address, an owner and the packet from the page, then approved after the automatic review', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const id = (
      await api.post('/customers', {
        customerType: 'BUSINESS',
        businessInfo: { legalName: 'Acme <b>Corp</b>', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber: 'REG-003' },
        currencies: ['USD'],
      })
    ).body.id as string;
    const page = await openLink(api, id);
    // the library escapes: markup in a name is text, not elements
    expect(await page.locator('h1').textContent()).toBe('Verify Acme <b>Corp</b>');
    expect(await page.locator('h1 b').count()).toBe(0);
    expect(await page.locator('#gaps').textContent()).toMatch(/beneficial owner/i);
    await fillDetails(page);

    const owner = page.locator('form[action$="/owners"]');
    await owner.getByLabel('First name').fill('Alex');
    await owner.getByLabel('Last name').fill('Smith');
    await owner.getByLabel('Date of birth').fill('1980-05-05');
    await owner.getByLabel('Nationality').selectOption('US');
    await owner.getByLabel('Address line 1').fill('1 Main St');
    await owner.getByLabel('Postal code').fill('98101');
    await owner.getByLabel('Country of residence').selectOption('US');
    await owner.getByLabel('ID type').selectOption('SSN');
    await owner.getByLabel('ID number').fill('12345');
    await owner.getByLabel('Ownership (%)').fill('100');
    await owner.getByLabel('Beneficial owner').check();
    await owner.getByLabel('Control person').check();
    await owner.getByRole('button', { name: 'Add owner' }).click();
    // an SSN in the wrong shape: named in words, everything typed is still in the form
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    expect(await page.getByRole('alert').textContent()).toMatch(/ID number/);
    const again = page.locator('form[action$="/owners"]');
    expect(await again.getByLabel('First name').inputValue()).toBe('Alex');
    expect(await again.getByLabel('Nationality').inputValue()).toBe('US');
    expect(await again.getByLabel('Control person').isChecked()).toBe(true);
    await again.getByLabel('ID number').fill('123-45-6789');
    await again.getByRole('button', { name: 'Add owner' }).click();
    await expect.poll(() => page.locator('.note').textContent()).toContain('Owner added');
    expect(await page.locator('#owners').textContent()).toContain('Alex Smith');

    for (const type of ['CERTIFICATE_OF_INCORPORATION', 'SHAREHOLDER_REGISTER', 'DIRECTOR_REGISTRY', 'UTILITY_BILL']) await upload(page, 'Acme <b>Corp</b>', type);
    await upload(page, 'Alex Smith', 'PASSPORT', { documentNumber: 'X1', issuingAuthority: 'U.S. Department of State' });
    expect(await page.locator('#documents tr').count()).toBe(6);
    await page.getByRole('button', { name: 'Submit for verification' }).click();
    await expect.poll(() => page.locator('.note').textContent()).toContain('IN_PROGRESS');
    await api.advance(30);
    await page.reload();
    expect(await page.locator('#status').textContent()).toBe('APPROVED');
    await page.close();
  });
});
