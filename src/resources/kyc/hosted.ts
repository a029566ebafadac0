import { Hono } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import * as z from 'zod';
import type { SandboxContext } from '../../store/context.js';
import { ApiError } from '../../core/errors.js';
import { basicAuth } from '../../server/auth.js';
import type { AppEnv } from '../../server/env.js';
import { jsonBody, parseWith } from '../../server/validate.js';
import { readMultipartFile } from '../../server/multipart.js';
import type { AppContext } from '../../server/env.js';
import { customerUpdate, getCustomer, isCountryCode, presentCustomer, updateCustomer } from '../customers/index.js';
import { platformService, type Platform } from '../../tenancy/index.js';
import { HOSTED_KYC_PATH, openKycLink, sessionLink } from './links.js';
import { documentTypes, documentUploadFields, ownerCreate } from './schemas.js';
import { createOwner, createVerification, currentGaps, decideKyc, kycRepo, presentVerification, uploadDocument, type KycDecision, type UploadedFile } from './service.js';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** Form values a person typed, put back into the form after a validation error. */
type Values = Record<string, string | string[]>;

function page(title: string, body: Html): Html {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:760px;margin:2rem auto;padding:0 1rem;color:#222;line-height:1.4}
fieldset{margin:1rem 0;border:1px solid #ccc;border-radius:6px;padding:.8rem 1rem}legend{font-weight:600}
label{display:block;margin:.5rem 0}label>span{display:block;font-size:.9rem;color:#444}
input:not([type=checkbox]),select{width:100%;max-width:28rem;padding:.3rem;box-sizing:border-box}
.checks label{display:inline-block;margin-right:1rem}.err{color:#a00;background:#fee;padding:.5rem .8rem;border-radius:4px}
.note{background:#eef;padding:.5rem .8rem;border-radius:4px}button{margin:.3rem .3rem 0 0;padding:.4rem .9rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #eee}code{color:#666;font-size:.8rem}</style>
</head><body><p><small>service-sandbox · hosted KYC (SUMSUB simulation)</small></p>${body}</body></html>`;
}

/** Every ISO 3166-1 alpha-2 country with its English name (from the runtime's ICU data), by name. */
const COUNTRIES: { code: string; name: string }[] = (() => {
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const out: { code: string; name: string }[] = [];
  for (const a of letters) {
    for (const b of letters) {
      const code = a + b;
      // Only the codes the API accepts (ICU also names grouping and user-assigned codes).
      if (!isCountryCode(code)) continue;
      const name = names.of(code);
      if (name && name !== code && name !== 'Unknown Region') out.push({ code, name });
    }
  }
  return out.sort((x, y) => x.name.localeCompare(y.name));
})();

/** Words for the wire names a person sees (field paths, document types, roles, id types). */
const WORDS: Record<string, string> = {
  fullName: 'Full name', birthDate: 'Date of birth', nationality: 'Nationality', email: 'Email address', phoneNumber: 'Phone number',
  idType: 'ID type', identifier: 'ID number', countryOfIssuance: 'Country that issued the ID', line1: 'Address line 1', line2: 'Address line 2',
  city: 'City', state: 'State or region', postalCode: 'Postal code', country: 'Country', legalName: 'Legal name', taxId: 'Tax ID',
  registrationNumber: 'Registration number', incorporatedOn: 'Date of incorporation', entityType: 'Entity type', firstName: 'First name',
  lastName: 'Last name', ownershipPercentage: 'Ownership (%)', roles: 'Roles', documentType: 'Document type', documentHolder: 'Whose document',
  documentNumber: 'Document number', issuingAuthority: 'Issuing authority', side: 'Side', file: 'File', decision: 'Decision',
  SSN: 'US Social Security number (SSN)', ITIN: 'US taxpayer number (ITIN)', NON_US_TAX_ID: 'Non-US tax ID', UBO: 'Beneficial owner',
  CONTROL_PERSON: 'Control person', DIRECTOR: 'Director', COMPANY_OFFICER: 'Company officer', FRONT: 'Front', BACK: 'Back',
};

/** `PROOF_OF_ADDRESS` as "Proof of address", `postalCode` as "Postal code". */
const words = (name: string): string =>
  WORDS[name] ??
  (/^[A-Z0-9_]+$/.test(name) ? name.charAt(0) + name.slice(1).toLowerCase().replace(/_/g, ' ') : name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase()).replace(/ ([A-Z])/g, (_, c: string) => ` ${c.toLowerCase()}`));

/** `address.postalCode` as "Address: Postal code", `personalInfo.lastName` as "Last name". */
const fieldWords = (path: string): string => {
  const parts = path.split('.').filter((p) => p !== 'personalInfo' && p !== 'businessInfo' && !/^\d+$/.test(p));
  const last = parts.at(-1) ?? path;
  return parts.length > 1 && parts[0] === 'address' ? `Address: ${words(last)}` : words(last);
};

const valueOf = (values: Values | undefined, name: string): string => {
  const v = values?.[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
};

function countrySelect(name: string, values: Values | undefined, fallback = ''): Html {
  const chosen = valueOf(values, name).toUpperCase() || fallback;
  return html`<select name="${name}" required><option value="">Choose a country</option>${COUNTRIES.map(
    (c) => html`<option value="${c.code}" ${chosen === c.code ? 'selected' : ''}>${c.name} (${c.code})</option>`,
  )}</select>`;
}

function choice(name: string, options: readonly string[], values: Values | undefined, extra: Html | string = ''): Html {
  const chosen = valueOf(values, name);
  return html`<select name="${name}">${extra}${options.map((o) => html`<option value="${o}" ${chosen === o ? 'selected' : ''}>${words(o)}</option>`)}</select>`;
}

/** The input for one customer field path: a country list, a date, an ID-type list or text. */
function fieldInput(path: string, values: Values | undefined): Html {
  const last = path.split('.').at(-1)!;
  if (/country|nationality|countryOfIssuance/i.test(last)) return countrySelect(path, values);
  if (last === 'idType') return choice(path, ['SSN', 'ITIN'], values);
  const type = /Date|On$/.test(last) ? 'date' : last === 'email' ? 'email' : last === 'phoneNumber' ? 'tel' : 'text';
  return html`<input name="${path}" type="${type}" value="${valueOf(values, path)}" required>`;
}

const decisionBody = z.object({ decision: z.enum(['APPROVED', 'REJECTED', 'HOLD']) });

/** Sets a value at a dot path (`businessInfo.registrationNumber`, `address.line1`). */
function setPath(target: Record<string, any>, path: string, value: string): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) node = node[key] ??= {};
  node[keys.at(-1)!] = value;
}

/**
 * Routes outside the contract: the hosted KYC pages a `kycUrl` points at (no credentials: the
 * link's token is the credential) and the control-plane decision endpoint the CLI uses.
 */
export function kycExtraRoutes(ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  // Control plane: a KYC/KYB decision through the same service path a provider decision takes.
  app.post('/_sandbox/customers/:customerId/kyc-decision', basicAuth, async (c) => {
    const { decision } = await jsonBody(c, decisionBody);
    const platform = c.get('platform');
    const customerId = c.req.param('customerId');
    const verification = decideKyc(ctx, platform, customerId, decision as KycDecision);
    return c.json({
      customer: presentCustomer(getCustomer(ctx, platform.id, customerId)),
      verification: verification ? presentVerification(verification) : null,
    });
  });

  const expired = (reason: string) =>
    page('Link expired', html`<h1>This verification link has expired</h1><p>${reason}</p><p>Ask the platform for a new link.</p>`);

  app.get(`${HOSTED_KYC_PATH}/:token`, (c) => {
    const opened = openKycLink(ctx, c.req.param('token'));
    if (!opened.ok) {
      const reason = { unknown: 'No such link.', used: 'Links are single use and this one was already used.', expired: 'The link is past its expiry time.' }[opened.reason];
      return c.html(expired(reason), opened.reason === 'unknown' ? 404 : 410);
    }
    return c.redirect(`${HOSTED_KYC_PATH}/session/${opened.sessionId}`, 303);
  });

  const withSession = (sessionId: string) => {
    const link = sessionLink(ctx, sessionId);
    if (!link) return undefined;
    const platform = platformService(ctx).byId(link.platform_id);
    return platform ? { link, platform } : undefined;
  };

  /** What the page shows besides the state: a flash message, or an error with the form it belongs to and what was typed. */
  interface Feedback {
    message?: string;
    error?: { text: string; fields: { label: string; message: string }[] };
    form?: string;
    values?: Values;
  }

  const render = (platform: Platform, sessionId: string, customerId: string, redirectUri: string | null, feedback: Feedback = {}): Html => {
    const customer = getCustomer(ctx, platform.id, customerId);
    const status = customer.kycStatus;
    const name = customer.customerType === 'INDIVIDUAL' ? customer.profile.fullName : customer.profile.businessInfo?.legalName;
    const base = `${HOSTED_KYC_PATH}/session/${sessionId}`;
    const decided = status === 'APPROVED' || status === 'REJECTED';
    const repo = kycRepo(ctx);
    const owners = repo.ownersOf(platform.id, customerId);
    const values = (form: string) => (feedback.form === form ? feedback.values : undefined);
    const head = html`<h1>Verify ${name ?? customer.id}</h1><p>Status: <strong id="status">${status}</strong></p>
      ${feedback.message ? html`<p class="note" role="status">${feedback.message}</p>` : ''}
      ${feedback.error
        ? html`<div class="err" role="alert"><p>${feedback.error.text}</p>${feedback.error.fields.length
            ? html`<ul>${feedback.error.fields.map((f) => html`<li><strong>${f.label}</strong>: ${f.message}</li>`)}</ul>`
            : ''}</div>`
        : ''}`;
    if (decided) {
      const what = customer.customerType === 'INDIVIDUAL' ? 'KYC' : 'KYB';
      return page('Verification', html`${head}<p id="final">The ${what} decision is final: it cannot be changed.</p>${redirectUri ? html`<p><a href="${redirectUri}">Return to the platform</a></p>` : ''}`);
    }
    const gaps = currentGaps(ctx, platform, customerId);
    const holders = [
      { id: customerId, label: String(name ?? customerId) },
      ...owners.map((o) => {
        const info = JSON.parse(o.personal_info) as { firstName: string; lastName: string };
        return { id: o.id, label: `${info.firstName} ${info.lastName}` };
      }),
    ];
    const holderName = new Map(holders.map((h) => [h.id, h.label]));
    const latest = repo.verificationsOf(platform.id, customerId).at(-1)?.verification_status;
    const docStatus = (flagged: number) =>
      flagged ? 'Needs a clearer copy' : latest === 'IN_PROGRESS' || latest === 'PENDING_MANUAL_REVIEW' ? 'Under review' : latest === 'APPROVED' ? 'Accepted' : 'Received';
    const docs = repo.documentsOfCustomer(platform.id, customerId);
    // The customer's own missing or invalid fields: asked for from the start, before any submission.
    const fieldGaps = gaps.filter((g) => (g.type === 'MISSING_FIELD' || g.type === 'INVALID_FIELD') && g.resourceId === customerId && g.field);
    const fieldValues = values('fields');
    const ownerValues = values('owners');
    const docValues = values('documents');
    const roles = ([] as string[]).concat(ownerValues?.roles ?? []);
    const body = html`${head}
      <h2>What is still needed</h2>
      ${gaps.length
        ? html`<ul id="gaps">${gaps.map(
            (g) => html`<li>${g.field ? html`<strong>${fieldWords(g.field)}</strong>: ` : html`<strong>${words(g.type)}</strong>${holderName.has(g.resourceId) && g.resourceId !== customerId ? ` (${holderName.get(g.resourceId)})` : ''}: `}${g.reason} <code>${g.type}</code></li>`,
          )}</ul>`
        : html`<p>Everything needed is on file. Submit when ready.</p>`}
      ${fieldGaps.length
        ? html`<form method="post" action="${base}/fields"><fieldset><legend>Your details</legend>${fieldGaps.map(
            (g) => html`<label><span>${fieldWords(g.field!)}</span>${fieldInput(g.field!, fieldValues)}</label>`,
          )}<button>Save details</button></fieldset></form>`
        : ''}
      ${customer.customerType === 'BUSINESS'
        ? html`<form method="post" action="${base}/owners"><fieldset><legend>Add a beneficial owner or control person</legend>
          <label><span>First name</span><input name="firstName" value="${valueOf(ownerValues, 'firstName')}" required></label>
          <label><span>Last name</span><input name="lastName" value="${valueOf(ownerValues, 'lastName')}" required></label>
          <label><span>Date of birth</span><input name="birthDate" type="date" value="${valueOf(ownerValues, 'birthDate')}" required></label>
          <label><span>Nationality</span>${countrySelect('nationality', ownerValues)}</label>
          <label><span>Address line 1</span><input name="line1" value="${valueOf(ownerValues, 'line1')}" required></label>
          <label><span>Postal code</span><input name="postalCode" value="${valueOf(ownerValues, 'postalCode')}" required></label>
          <label><span>Country of residence</span>${countrySelect('country', ownerValues)}</label>
          <label><span>ID type</span>${choice('idType', ['SSN', 'ITIN', 'NON_US_TAX_ID'], ownerValues)}</label>
          <label><span>ID number</span><input name="identifier" value="${valueOf(ownerValues, 'identifier')}" required></label>
          <label><span>Ownership (%)</span><input name="ownershipPercentage" type="number" min="0" max="100" value="${valueOf(ownerValues, 'ownershipPercentage')}" required></label>
          <div class="checks"><span>Roles</span> ${['UBO', 'CONTROL_PERSON', 'DIRECTOR', 'COMPANY_OFFICER'].map(
            (r) => html`<label><input type="checkbox" name="roles" value="${r}" ${roles.includes(r) ? 'checked' : ''}> ${words(r)}</label>`,
          )}</div>
          <button>Add owner</button></fieldset></form>
          ${owners.length ? html`<h2>Owners and control persons</h2><ul id="owners">${owners.map((o) => html`<li>${holderName.get(o.id)} (${(JSON.parse(o.roles) as string[]).map(words).join(', ')}, ${o.ownership_percentage} %)</li>`)}</ul>` : ''}`
        : ''}
      <h2>Documents</h2>
      ${docs.length
        ? html`<table id="documents"><tr><th>Document</th><th>Whose</th><th>File</th><th>Status</th></tr>${docs.map(
            (d) => html`<tr><td>${words(d.document_type)}${d.side ? ` (${words(d.side)})` : ''}</td><td>${holderName.get(d.document_holder) ?? d.document_holder}</td><td>${d.file_name}</td><td>${docStatus(d.quality_flagged)}</td></tr>`,
          )}</table>`
        : html`<p>No documents uploaded yet.</p>`}
      <form method="post" action="${base}/documents" enctype="multipart/form-data"><fieldset><legend>Upload a document</legend>
        <label><span>Whose document</span><select name="documentHolder">${holders.map((h) => html`<option value="${h.id}" ${valueOf(docValues, 'documentHolder') === h.id ? 'selected' : ''}>${h.label}</option>`)}</select></label>
        <label><span>Document type</span>${choice('documentType', documentTypes, docValues)}</label>
        <label><span>Side</span>${choice('side', ['FRONT', 'BACK'], docValues, html`<option value="">Single-sided</option>`)}</label>
        <label><span>Issuing country</span>${countrySelect('country', docValues)}</label>
        <label><span>Document number (identity documents)</span><input name="documentNumber" value="${valueOf(docValues, 'documentNumber')}"></label>
        <label><span>Issuing authority (identity documents)</span><input name="issuingAuthority" value="${valueOf(docValues, 'issuingAuthority')}"></label>
        <label><span>File (PDF, JPEG or PNG, at most 10 MB)</span><input type="file" name="file" accept="application/pdf,image/jpeg,image/png" required></label>
        <button>Upload</button></fieldset></form>
      <form method="post" action="${base}/submit"><button>Submit for verification</button></form>
      <form method="post" action="${base}/decision"><fieldset><legend>Sandbox reviewer</legend>
        <p><small>Decides as the compliance reviewer would; the customer and its verification move together. Approve and Reject are final (no later decision changes them); Hold asks for more information and may be followed by either.</small></p>
        <button name="decision" value="APPROVED">Approve</button><button name="decision" value="HOLD">Hold for review</button><button name="decision" value="REJECTED">Reject</button></fieldset></form>`;
    return page('Verification', body);
  };

  app.get(`${HOSTED_KYC_PATH}/session/:sessionId`, (c) => {
    const session = withSession(c.req.param('sessionId'));
    if (!session) return c.html(expired('This verification session is over.'), 410);
    return c.html(render(session.platform, c.req.param('sessionId'), session.link.customer_id, session.link.redirect_uri, { message: c.req.query('msg') }));
  });

  app.post(`${HOSTED_KYC_PATH}/session/:sessionId/:action`, async (c) => {
    const sessionId = c.req.param('sessionId');
    const session = withSession(sessionId);
    if (!session) return c.html(expired('This verification session is over.'), 410);
    const { platform, link } = session;
    const customerId = link.customer_id;
    let form: Record<string, string | string[] | UploadedFile>;
    try {
      form = await readForm(c);
    } catch {
      return c.html(render(platform, sessionId, customerId, link.redirect_uri, { error: { text: 'The form could not be read; send it again.', fields: [] } }), 400);
    }
    const text = (key: string) => {
      const value = form[key];
      const single = Array.isArray(value) ? value[0] : value;
      return typeof single === 'string' && single !== '' ? single : undefined;
    };
    try {
      let message: string;
      switch (c.req.param('action')) {
        case 'fields': {
          const customer = getCustomer(ctx, platform.id, customerId);
          const update: Record<string, any> = { customerType: customer.customerType };
          // Only the paths the page asked for (and so never __proto__ or the like).
          const asked = new Set(currentGaps(ctx, platform, customerId).filter((g) => g.type === 'MISSING_FIELD').map((g) => g.field));
          for (const [key, value] of Object.entries(form)) if (asked.has(key) && typeof value === 'string' && value !== '') setPath(update, key, value);
          if (update.address) update.address = { ...customer.profile.address, ...update.address };
          updateCustomer(ctx, platform, customerId, parseWith(customerUpdate, update, 'details'));
          message = 'Details saved.';
          break;
        }
        case 'owners': {
          const roles = ([] as unknown[]).concat(form.roles ?? []).filter((r): r is string => typeof r === 'string');
          const input = parseWith(ownerCreate, {
            customerId,
            roles,
            ownershipPercentage: Number(text('ownershipPercentage')),
            personalInfo: {
              firstName: text('firstName'),
              lastName: text('lastName'),
              birthDate: text('birthDate'),
              nationality: text('nationality')?.toUpperCase(),
              address: { line1: text('line1'), postalCode: text('postalCode'), country: text('country')?.toUpperCase() },
              idType: text('idType'),
              identifier: text('identifier'),
            },
          }, 'owner');
          createOwner(ctx, platform, input);
          message = 'Owner added.';
          break;
        }
        case 'documents': {
          const file = typeof form.file === 'object' && !Array.isArray(form.file) ? form.file : undefined;
          const input = parseWith(documentUploadFields, {
            documentHolder: text('documentHolder'),
            documentType: text('documentType'),
            side: text('side'),
            country: text('country')?.toUpperCase(),
            documentNumber: text('documentNumber'),
            issuingAuthority: text('issuingAuthority'),
          }, 'document');
          uploadDocument(ctx, platform, input, file);
          message = 'Document uploaded.';
          break;
        }
        case 'submit': {
          const verification = createVerification(ctx, platform, customerId);
          message = `Submitted: verification is ${verification.verification_status}.`;
          break;
        }
        case 'decision': {
          const decision = parseWith(decisionBody, { decision: text('decision') }, 'decision').decision as KycDecision;
          decideKyc(ctx, platform, customerId, decision);
          message = `Decision recorded: ${decision}.`;
          break;
        }
        default:
          return c.html(page('Not found', html`<h1>Unknown action</h1>`), 404);
      }
      return c.redirect(`${HOSTED_KYC_PATH}/session/${sessionId}?msg=${encodeURIComponent(message)}`, 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const fields = ((error.details?.errors as { field: string; message: string }[] | undefined) ?? []).map((e) => ({ label: fieldWords(e.field), message: e.message }));
      const values: Values = {};
      for (const [key, value] of Object.entries(form)) {
        const texts = ([] as unknown[]).concat(value).filter((v): v is string => typeof v === 'string');
        if (texts.length) values[key] = key === 'roles' ? texts : texts[0]!;
      }
      const text = fields.length === 0 ? error.message : `${error.message} Please correct the fields below and send the form again.`;
      return c.html(render(platform, sessionId, customerId, link.redirect_uri, { error: { text, fields }, form: c.req.param('action'), values }), error.status as 400);
    }
  });

  return app;
}

/**
 * A hosted form's values. The document form is multipart and read as it streams in (parsed whole
 * at the end, a 10 MB upload held the event loop 25-67 ms), its file part kept; the other forms
 * are small url-encoded ones.
 */
async function readForm(c: AppContext): Promise<Record<string, string | string[] | UploadedFile>> {
  if ((c.req.header('Content-Type') ?? '').toLowerCase().startsWith('multipart/form-data')) {
    const { fields, file } = await readMultipartFile(c);
    return file ? { ...fields, file: { name: file.filename || 'upload', declaredType: file.mimeType, bytes: file.bytes } } : fields;
  }
  const form = await c.req.parseBody({ all: true });
  const values: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(form)) {
    const texts = ([] as unknown[]).concat(value).filter((v): v is string => typeof v === 'string');
    if (texts.length) values[key] = texts.length === 1 ? texts[0]! : texts;
  }
  return values;
}

