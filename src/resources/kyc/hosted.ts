import { Hono } from 'hono';
import { z } from 'zod';
import type { SandboxContext } from '../../context.js';
import { ApiError } from '../../core/errors.js';
import { basicAuth } from '../../server/auth.js';
import type { AppEnv } from '../../server/env.js';
import { jsonBody, parseWith } from '../../server/validate.js';
import { customerUpdate, getCustomer, presentCustomer, updateCustomer } from '../customers/index.js';
import { platformService, type Platform } from '../platform/index.js';
import { HOSTED_KYC_PATH, openKycLink, sessionLink } from './links.js';
import { documentTypes, documentUploadFields, ownerCreate } from './schemas.js';
import { createOwner, createVerification, currentGaps, decideKyc, kycRepo, presentVerification, uploadDocument, type KycDecision } from './service.js';

const esc = (value: unknown) =>
  String(value ?? '').replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:760px;margin:2rem auto;padding:0 1rem;color:#222}
fieldset{margin:1rem 0;border:1px solid #ccc;border-radius:6px}label{display:block;margin:.3rem 0}
input,select{margin-left:.4rem}.err{color:#a00}.note{background:#eef;padding:.5rem;border-radius:4px}button{margin:.3rem .3rem 0 0}</style>
</head><body><p><small>service-sandbox · hosted KYC (SUMSUB simulation)</small></p>${body}</body></html>`;
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
    page('Link expired', `<h1>This verification link has expired</h1><p>${esc(reason)}</p><p>Ask the platform for a new link.</p>`);

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

  const render = (platform: Platform, sessionId: string, customerId: string, redirectUri: string | null, message?: string, error?: string) => {
    const customer = getCustomer(ctx, platform.id, customerId);
    const status = customer.kycStatus;
    const name = customer.customerType === 'INDIVIDUAL' ? customer.profile.fullName : customer.profile.businessInfo?.legalName;
    const base = `${HOSTED_KYC_PATH}/session/${sessionId}`;
    const decided = status === 'APPROVED' || status === 'REJECTED';
    const gaps = decided ? [] : currentGaps(ctx, platform, customerId);
    const owners = kycRepo(ctx).ownersOf(platform.id, customerId);
    const parts: string[] = [`<h1>Verify ${esc(name ?? customer.id)}</h1><p>Status: <strong id="status">${esc(status)}</strong></p>`];
    if (message) parts.push(`<p class="note">${esc(message)}</p>`);
    if (error) parts.push(`<p class="err">${esc(error)}</p>`);
    if (decided) {
      if (redirectUri) parts.push(`<p><a href="${esc(redirectUri)}">Return to the platform</a></p>`);
      return page('Verification', parts.join(''));
    }
    if (gaps.length) {
      parts.push(`<h2>Still needed</h2><ul>${gaps.map((g) => `<li>${esc(g.type)}${g.field ? ` <code>${esc(g.field)}</code>` : ''}: ${esc(g.reason)}</li>`).join('')}</ul>`);
    } else {
      parts.push('<p>Everything needed is on file.</p>');
    }
    const fieldGaps = gaps.filter((g) => g.type === 'MISSING_FIELD' && g.resourceId === customerId && g.field);
    if (fieldGaps.length) {
      parts.push(`<form method="post" action="${base}/fields"><fieldset><legend>Missing details</legend>${fieldGaps
        .map((g) => `<label>${esc(g.field)}<input name="${esc(g.field)}" required></label>`)
        .join('')}<button>Save</button></fieldset></form>`);
    }
    if (customer.customerType === 'BUSINESS') {
      parts.push(`<form method="post" action="${base}/owners"><fieldset><legend>Add a beneficial owner or control person</legend>
        <label>First name<input name="firstName" required></label><label>Last name<input name="lastName" required></label>
        <label>Birth date<input name="birthDate" type="date" required></label><label>Nationality<input name="nationality" maxlength="2" required></label>
        <label>Address line 1<input name="line1" required></label><label>Postal code<input name="postalCode" required></label><label>Country<input name="country" maxlength="2" required></label>
        <label>Id type<select name="idType"><option>SSN</option><option>ITIN</option><option>NON_US_TAX_ID</option></select></label><label>Identifier<input name="identifier" required></label>
        <label>Ownership %<input name="ownershipPercentage" type="number" min="0" max="100" required></label>
        <label>Roles ${['UBO', 'CONTROL_PERSON', 'DIRECTOR', 'COMPANY_OFFICER'].map((r) => `<input type="checkbox" name="roles" value="${r}">${r}`).join(' ')}</label>
        <button>Add owner</button></fieldset></form>`);
    }
    const holders = [{ id: customerId, label: String(name ?? customerId) }, ...owners.map((o) => {
      const info = JSON.parse(o.personal_info) as { firstName: string; lastName: string };
      return { id: o.id, label: `${info.firstName} ${info.lastName}` };
    })];
    parts.push(`<form method="post" action="${base}/documents" enctype="multipart/form-data"><fieldset><legend>Upload a document</legend>
      <label>For<select name="documentHolder">${holders.map((h) => `<option value="${esc(h.id)}">${esc(h.label)}</option>`).join('')}</select></label>
      <label>Type<select name="documentType">${documentTypes.map((t) => `<option>${t}</option>`).join('')}</select></label>
      <label>Side<select name="side"><option value="">(single-sided)</option><option>FRONT</option><option>BACK</option></select></label>
      <label>Country<input name="country" maxlength="2" required></label><label>Document number<input name="documentNumber"></label>
      <label>Issuing authority<input name="issuingAuthority"></label><label>File (PDF, JPEG or PNG, at most 10 MB)<input type="file" name="file" required></label>
      <button>Upload</button></fieldset></form>`);
    parts.push(`<form method="post" action="${base}/submit"><button>Submit for verification</button></form>
      <form method="post" action="${base}/decision"><fieldset><legend>Sandbox reviewer</legend>
      <button name="decision" value="APPROVED">Approve</button><button name="decision" value="REJECTED">Reject</button></fieldset></form>`);
    return page('Verification', parts.join(''));
  };

  app.get(`${HOSTED_KYC_PATH}/session/:sessionId`, (c) => {
    const session = withSession(c.req.param('sessionId'));
    if (!session) return c.html(expired('This verification session is over.'), 410);
    return c.html(render(session.platform, c.req.param('sessionId'), session.link.customer_id, session.link.redirect_uri, c.req.query('msg')));
  });

  app.post(`${HOSTED_KYC_PATH}/session/:sessionId/:action`, async (c) => {
    const sessionId = c.req.param('sessionId');
    const session = withSession(sessionId);
    if (!session) return c.html(expired('This verification session is over.'), 410);
    const { platform, link } = session;
    const customerId = link.customer_id;
    let form: Record<string, string | File | (string | File)[]>;
    try {
      form = await c.req.parseBody({ all: true });
    } catch {
      return c.html(render(platform, sessionId, customerId, link.redirect_uri, undefined, 'The form could not be read; send it again.'), 400);
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
          const fileValue = Array.isArray(form.file) ? form.file[0] : form.file;
          const file = fileValue instanceof File
            ? { name: fileValue.name || 'upload', declaredType: fileValue.type, bytes: new Uint8Array(await fileValue.arrayBuffer()) }
            : undefined;
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
          return c.html(page('Not found', '<h1>Unknown action</h1>'), 404);
      }
      return c.redirect(`${HOSTED_KYC_PATH}/session/${sessionId}?msg=${encodeURIComponent(message)}`, 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const details = (error.details?.errors as { field: string; message: string }[] | undefined)?.map((e) => `${e.field}: ${e.message}`).join('; ');
      return c.html(render(platform, sessionId, customerId, link.redirect_uri, undefined, `${error.message}${details ? ` (${details})` : ''}`), error.status as 400);
    }
  });

  return app;
}
