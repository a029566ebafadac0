import { perContext } from '../../core/per-context.js';
import type { SandboxContext } from '../../store/context.js';
import { ApiError, ErrorCode, type FieldError, invalidInput, notFound } from '../../core/errors.js';
import { paginateJson, type PageRequest } from '../../core/pagination.js';
import {
  CONTACT_VERIFICATION_CODE,
  END_USER_TERMS,
  businessCreationRules,
  contactCodeRules,
  individualDefaultStatus,
  individualNameRules,
  individualStatusAtCreation,
  suffixOf,
} from '../../rules/kyc-rules.js';
import { recordRule } from '../../store/coverage.js';
import { closeCustomerAccounts, provisionCustomerAccounts } from '../internal-accounts/index.js';
import type { Platform } from '../../tenancy/index.js';
import { CustomerRepo, type CustomerFields, type CustomerFilter, type CustomerRow } from './repo.js';
import type { CustomerCreate, CustomerListQuery, CustomerUpdate } from './schemas.js';
import { checkFullName, checkIdentifier, checkOtherDescriptions, checkTaxId, EU_COUNTRIES } from './validation.js';

/** The contract's `KycStatus` / `KybStatus`. */
export type KycStatus = 'UNVERIFIED' | 'PENDING' | 'APPROVED' | 'REJECTED' | 'HOLD';
/** The contract's `CustomerType`. */
export type CustomerType = 'INDIVIDUAL' | 'BUSINESS';
/** A contact channel that may need verifying. */
export type ContactChannel = 'email' | 'phone';

/** `endUserTermsConsent` as recorded. */
export interface EndUserTermsConsent {
  acceptedAt: string;
  ipAddress: string;
  termsVersion: string;
  acceptanceMethod: 'CHECKBOX' | 'CLICK_TO_ACCEPT';
}

/** Contact-verification state: each required channel's status, and when a code was last sent. */
export interface ContactState {
  email?: 'PENDING' | 'VERIFIED';
  phone?: 'PENDING' | 'VERIFIED';
  emailCodeSentAt?: string;
  phoneCodeSentAt?: string;
}

/**
 * A customer as the services see it. `profile` holds the type's own wire fields (individual
 * fields and EDD, or `address` + `businessInfo`), plus `email`, `phoneNumber` and an explicit
 * `region`; `identifier` is kept but never presented (write-only).
 */
export interface CustomerRecord {
  id: string;
  platformId: string;
  customerType: CustomerType;
  platformCustomerId: string;
  umaAddress: string;
  region: string | undefined;
  currencies: string[];
  kycStatus: KycStatus;
  profile: Record<string, any>;
  consent: EndUserTermsConsent | undefined;
  contact: ContactState | undefined;
  isDeleted: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The customers repo of a context (one per context). */
export const customerRepo = perContext((ctx: SandboxContext) => new CustomerRepo(ctx.db, ctx.counts));

const toRecord = (row: CustomerFields): CustomerRecord => ({
  id: row.id,
  platformId: row.platform_id,
  customerType: row.customer_type as CustomerType,
  platformCustomerId: row.platform_customer_id,
  umaAddress: row.uma_address,
  region: row.region ?? undefined,
  currencies: JSON.parse(row.currencies) as string[],
  kycStatus: row.kyc_status as KycStatus,
  profile: JSON.parse(row.profile) as Record<string, unknown>,
  consent: row.consent ? (JSON.parse(row.consent) as EndUserTermsConsent) : undefined,
  contact: row.contact ? (JSON.parse(row.contact) as ContactState) : undefined,
  isDeleted: row.is_deleted === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRow = (record: CustomerRecord, presented: Record<string, unknown> = presentCustomer(record)): CustomerRow => ({
  id: record.id,
  platform_id: record.platformId,
  customer_type: record.customerType,
  platform_customer_id: record.platformCustomerId,
  uma_address: record.umaAddress,
  region: record.region ?? null,
  currencies: JSON.stringify(record.currencies),
  kyc_status: record.kycStatus,
  profile: JSON.stringify(record.profile),
  consent: record.consent ? JSON.stringify(record.consent) : null,
  contact: record.contact && (record.contact.email || record.contact.phone) ? JSON.stringify(record.contact) : null,
  is_deleted: record.isDeleted ? 1 : 0,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
  // The stored wire JSON: written by every insert and update, which all pass through here.
  wire: JSON.stringify(presented),
});

/**
 * The wire JSON of the customer the latest create wrote: its answer sends the text the row and
 * the event hold. One slot, not a WeakMap of every record (whose set cost a create about a
 * microsecond, issue 26): the route reads it right after the create returns.
 */
let lastCreated: { record: CustomerRecord | undefined; wire: string } = { record: undefined, wire: '' };

/** A customer's wire JSON as text: the one written with it when `createCustomer` just made it, else presented now (the same text). */
export function customerWireText(record: CustomerRecord): string {
  return lastCreated.record === record ? lastCreated.wire : JSON.stringify(presentCustomer(record));
}

/** The wire JSON of a stored row (for rows written before `wire` was kept, and rows a snapshot import restored). */
export const wireOfRow = (row: CustomerRow): string => JSON.stringify(presentCustomer(toRecord(row)));

const USER_NOT_FOUND = 'USER_NOT_FOUND';

/** The contract's `CustomerOneOf` for a customer (what `GET /customers/{id}` returns and events carry). */
export function presentCustomer(record: CustomerRecord): Record<string, unknown> {
  const { email, phoneNumber, region: _explicitRegion, identifier: _identifier, ...own } = record.profile;
  const out: Record<string, unknown> = {
    id: record.id,
    platformCustomerId: record.platformCustomerId,
    customerType: record.customerType,
  };
  if (record.customerType === 'INDIVIDUAL') out.kycStatus = record.kycStatus;
  else out.kybStatus = record.kycStatus;
  if (record.region) out.region = record.region;
  out.currencies = record.currencies;
  if (email !== undefined) out.email = email;
  if (phoneNumber !== undefined) out.phoneNumber = phoneNumber;
  out.umaAddress = record.umaAddress;
  Object.assign(out, own);
  if (record.consent) out.endUserTermsConsent = record.consent;
  const contact: Record<string, string> = {};
  if (record.contact?.email) contact.email = record.contact.email;
  if (record.contact?.phone) contact.phone = record.contact.phone;
  if (Object.keys(contact).length > 0) out.contactVerification = contact;
  out.createdAt = record.createdAt;
  out.updatedAt = record.updatedAt;
  out.isDeleted = record.isDeleted;
  return out;
}

/** The region of a customer: the explicit `region`, else the country of its address, nationality or business. */
function regionOf(profile: Record<string, any>): string | undefined {
  return profile.region ?? profile.address?.country ?? profile.nationality ?? profile.businessInfo?.country;
}

/**
 * The channels a customer must verify: in the EU, each channel the customer has (email,
 * phone); elsewhere none. Keeps VERIFIED channels verified unless their value changed.
 */
function contactFor(region: string | undefined, profile: Record<string, any>, previous: ContactState | undefined, changed: Set<ContactChannel>): ContactState | undefined {
  if (!region || !EU_COUNTRIES.has(region)) return undefined;
  const next: ContactState = {};
  if (profile.email !== undefined) {
    next.email = previous?.email === 'VERIFIED' && !changed.has('email') ? 'VERIFIED' : 'PENDING';
    if (previous?.emailCodeSentAt && !changed.has('email')) next.emailCodeSentAt = previous.emailCodeSentAt;
  }
  if (profile.phoneNumber !== undefined) {
    next.phone = previous?.phone === 'VERIFIED' && !changed.has('phone') ? 'VERIFIED' : 'PENDING';
    if (previous?.phoneCodeSentAt && !changed.has('phone')) next.phoneCodeSentAt = previous.phoneCodeSentAt;
  }
  return next.email || next.phone ? next : undefined;
}

/** Cross-field rules of API.md on a (merged) profile; returns every field error. */
function checkProfile(customerType: CustomerType, profile: Record<string, any>): FieldError[] {
  const errors: FieldError[] = [];
  if (customerType === 'INDIVIDUAL') {
    if (profile.fullName !== undefined) {
      const error = checkFullName(profile.fullName, 'fullName');
      if (error) errors.push(error);
    }
    errors.push(...checkIdentifier(profile.idType, profile.identifier));
    errors.push(...checkOtherDescriptions(profile));
  } else {
    const info = profile.businessInfo ?? {};
    if (info.taxId !== undefined && info.country !== undefined) {
      const error = checkTaxId(info.taxId, info.country, 'businessInfo.taxId');
      if (error) errors.push(error);
    }
    errors.push(...checkOtherDescriptions(info, 'businessInfo.'));
  }
  return errors;
}

function checkCurrencies(platform: Platform, currencies: readonly string[] | undefined, errors: FieldError[]): void {
  if (!currencies) return;
  const supported = platform.config.supportedCurrencies.map((c) => c.currencyCode);
  currencies.forEach((code, index) => {
    if (!supported.includes(code)) {
      errors.push({ field: `currencies.${index}`, constraint: { enum: supported }, message: `${code} is not a currency configured on this platform.` });
    }
  });
}

const UMA_ADDRESS = /^\$[a-zA-Z0-9._-]{1,64}@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,63}$/;

function checkUmaAddress(value: string): void {
  if (!UMA_ADDRESS.test(value)) {
    throw new ApiError(400, 'INVALID_UMA_ADDRESS', `${value} is not a UMA address; use the form $name@domain.com.`, {
      errors: [{ field: 'umaAddress', constraint: { pattern: UMA_ADDRESS.source }, message: 'A UMA address such as $jane@mycompany.com.' }],
    });
  }
}

/** API.md "Platform kinds": consent belongs to unregulated platforms and must name a recognised version. */
function checkConsent(platform: Platform, consent: EndUserTermsConsent | undefined): void {
  if (!consent) return;
  if (platform.regulated) {
    throw invalidInput('endUserTermsConsent is not part of the flow on a regulated platform; regulated platforms rely on their own compliance.', [
      { field: 'endUserTermsConsent', message: 'Omit it on a regulated platform.' },
    ]);
  }
  if (consent.termsVersion !== END_USER_TERMS.version) {
    throw new ApiError(400, 'END_USER_TERMS_VERSION_NOT_FOUND', `End User Terms version ${consent.termsVersion} is not recognised; GET /customers/end-user-terms lists ${END_USER_TERMS.version}.`, {
      errors: [{ field: 'endUserTermsConsent.termsVersion', constraint: { enum: [END_USER_TERMS.version] }, message: 'Use the version GET /customers/end-user-terms returns.' }],
    });
  }
}

/** Whether internal accounts may exist: always on a regulated platform, after consent on an unregulated one. */
function accountsAllowed(platform: Platform, record: CustomerRecord): boolean {
  return platform.regulated || record.consent !== undefined;
}

/**
 * sandbox-rules.md "Rulings": on every platform, regulated or not, businesses are created
 * UNVERIFIED (verification decides them) and an individual's `fullName` suffix decides.
 * A `kycStatus` / `kybStatus` sent on create is validated against the contract's enum and
 * otherwise ignored: the sandbox rules decide.
 */
function statusAtCreation(input: CustomerCreate): KycStatus {
  if (input.customerType === 'BUSINESS') return 'UNVERIFIED';
  return individualStatusAtCreation[suffixOf(input.fullName)] ?? individualDefaultStatus;
}

/** The outbox event of a customer entering a status, if that status has one. */
export function statusEventType(customerType: CustomerType, status: KycStatus): string | undefined {
  if (status !== 'PENDING' && status !== 'APPROVED' && status !== 'REJECTED') return undefined;
  return `CUSTOMER.${customerType === 'INDIVIDUAL' ? 'KYC' : 'KYB'}_${status}`;
}

/** `GET /customers/end-user-terms`. */
export function endUserTerms(): { version: string; url: string } {
  return { version: END_USER_TERMS.version, url: END_USER_TERMS.url };
}

/** The request without the `kycStatus` / `kybStatus` a client may send (validated by the schema, decided by the sandbox). */
function withoutRequestedStatus<T extends { kycStatus?: unknown; kybStatus?: unknown }>(input: T): Omit<T, 'kycStatus' | 'kybStatus'> {
  const { kycStatus: _kyc, kybStatus: _kyb, ...rest } = input as T & { kycStatus?: unknown; kybStatus?: unknown };
  return rest;
}

/**
 * `POST /customers`: validates, creates, provisions accounts when allowed; one transaction, whose
 * refusals (the two conflicts) all come before its first write (`checksFirst`: no savepoint).
 */
export function createCustomer(ctx: SandboxContext, platform: Platform, input: CustomerCreate): CustomerRecord {
  const { customerType, platformCustomerId, umaAddress, currencies, endUserTermsConsent, ...profile } = withoutRequestedStatus(input);
  const errors = checkProfile(customerType, profile);
  checkCurrencies(platform, currencies, errors);
  if (errors.length) throw invalidInput('The customer is not valid.', errors);
  checkConsent(platform, endUserTermsConsent);
  if (umaAddress !== undefined) checkUmaAddress(umaAddress);
  const repo = customerRepo(ctx);
  return ctx.tx(() => {
    const id = ctx.ids.next('Customer');
    const uuid = id.slice(id.indexOf(':') + 1);
    const ownId = platformCustomerId ?? uuid;
    if (repo.activeIdByPlatformCustomerId(platform.id, ownId)) {
      throw new ApiError(409, ErrorCode.CONFLICT, `An active customer with platformCustomerId ${ownId} already exists.`, { platformCustomerId: ownId });
    }
    let uma = umaAddress ?? `$${timeOrderedName(uuid)}@${platform.config.umaDomain}`;
    let taken = repo.activeIdByUmaAddress(platform.id, uma) !== undefined;
    // A default address is taken only if a customer chose that very address: the id's random end instead.
    if (taken && umaAddress === undefined) {
      uma = `$${uuid.slice(-12)}@${platform.config.umaDomain}`;
      taken = repo.activeIdByUmaAddress(platform.id, uma) !== undefined;
    }
    if (taken) {
      throw new ApiError(409, 'UMA_ADDRESS_EXISTS', `The UMA address ${uma} is already taken.`, { umaAddress: uma });
    }
    const now = ctx.clock.iso();
    const region = regionOf(profile);
    const record: CustomerRecord = {
      id,
      platformId: platform.id,
      customerType,
      platformCustomerId: ownId,
      umaAddress: uma,
      region,
      currencies: currencies && currencies.length ? [...new Set(currencies)] : platform.config.supportedCurrencies.map((c) => c.currencyCode),
      kycStatus: statusAtCreation(input),
      profile,
      consent: endUserTermsConsent,
      contact: contactFor(region, profile, undefined, new Set()),
      isDeleted: false,
      createdAt: now,
      updatedAt: now,
    };
    // Presented and serialized once: the stored wire, the event's data and the response are the same JSON.
    const presented = presentCustomer(record);
    const row = toRow(record, presented);
    repo.insert(row);
    lastCreated = { record, wire: row.wire! };
    if (accountsAllowed(platform, record)) provisionCustomerAccounts(ctx, platform, record, true);
    const type = statusEventType(customerType, record.kycStatus);
    if (type) ctx.outbox.append(platform.id, type, id, presented, row.wire!);
    recordRule(ctx, platform.id, input.customerType === 'BUSINESS' ? businessCreationRules.id('created-unverified') : individualNameRules.of(suffixOf(input.fullName)));
    return record;
  }, { checksFirst: true });
}

/** `404 USER_NOT_FOUND` for a customer id this platform has no (active) customer of. */
const noCustomer = (customerId: string) => notFound(USER_NOT_FOUND, `No customer ${customerId} on this platform.`);

/** The active customer of a platform, or `404 USER_NOT_FOUND` (another platform's id and deleted customers included). */
export function getCustomer(ctx: SandboxContext, platformId: string, customerId: string): CustomerRecord {
  const row = customerRepo(ctx).byId(platformId, customerId);
  if (!row || row.is_deleted === 1) throw noCustomer(customerId);
  return toRecord(row);
}

/**
 * Who a customer is and how to reach it: what a guard in front of a customer's actions (SCA)
 * needs, read from five columns instead of the whole row (an SCA login reads it twice, issue 26).
 */
export type CustomerSubject = Pick<CustomerRecord, 'id' | 'platformId' | 'platformCustomerId' | 'region' | 'profile' | 'contact'>;

/** An active customer's `CustomerSubject`, or `404 USER_NOT_FOUND` as `getCustomer`. */
export function getCustomerSubject(ctx: SandboxContext, platformId: string, customerId: string): CustomerSubject {
  const row = customerRepo(ctx).subjectById(platformId, customerId);
  if (!row || row[4] === 1) throw noCustomer(customerId);
  return {
    id: customerId,
    platformId,
    platformCustomerId: row[0],
    region: row[1] ?? undefined,
    profile: JSON.parse(row[2]) as Record<string, unknown>,
    contact: row[3] ? (JSON.parse(row[3]) as ContactState) : undefined,
  };
}

/** A customer of a platform including deleted ones (`GET /customers/{id}` shows `isDeleted`), or 404. */
export function findCustomer(ctx: SandboxContext, platformId: string, customerId: string): CustomerRecord {
  const row = customerRepo(ctx).byId(platformId, customerId);
  if (!row) throw noCustomer(customerId);
  return toRecord(row);
}

/**
 * The name of a customer's default UMA address: the instant and counter of its UUIDv7 id (60
 * bits) in 12 base-36 characters, so consecutive customers get consecutive addresses. Unique as
 * the ids are; in order as they are, so each new address goes at the end of the UMA indexes
 * instead of into a random page of each (issue 26: a random key cost a page write per create).
 */
export function timeOrderedName(uuid: string): string {
  // The 60 bits as two exact 30-bit limbs (a BigInt cost a create about 2 µs under load, issue
  // 26): the 48-bit instant (characters 0-7 and 9-12) then the 12-bit counter (15-17).
  const ms = Number.parseInt(uuid.slice(0, 8), 16) * 0x10000 + Number.parseInt(uuid.slice(9, 13), 16);
  let high = Math.floor(ms / 0x40000);
  let low = (ms % 0x40000) * 0x1000 + Number.parseInt(uuid.slice(15, 18), 16);
  let name = '';
  for (let i = 0; i < 12; i += 1) {
    const highDigit = high % 36;
    high = (high - highDigit) / 36;
    const rest = highDigit * 0x40000000 + low;
    const digit = rest % 36;
    low = (rest - digit) / 36;
    name = BASE36[digit]! + name;
  }
  return name;
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/** The active customer of a platform whose `umaAddress` is this one (compared case-insensitively, as UMA addresses are), or undefined. */
export function findCustomerByUmaAddress(ctx: SandboxContext, platformId: string, address: string): CustomerRecord | undefined {
  const id = customerRepo(ctx).activeIdByUmaAddressAnyCase(platformId, address);
  return id === undefined ? undefined : getCustomer(ctx, platformId, id);
}

/** `PATCH /customers/{id}`: merges the fields, records consent, provisions missing accounts; one transaction. */
export function updateCustomer(ctx: SandboxContext, platform: Platform, customerId: string, input: CustomerUpdate): CustomerRecord {
  return ctx.tx(() => {
    const current = getCustomer(ctx, platform.id, customerId);
    if (input.customerType !== current.customerType) {
      throw invalidInput(`customerType cannot change: this customer is ${current.customerType}.`, [
        { field: 'customerType', constraint: { enum: [current.customerType] }, message: `Send customerType ${current.customerType}.` },
      ]);
    }
    const { customerType, umaAddress, currencies, endUserTermsConsent, ...changes } = withoutRequestedStatus(input);
    const profile: Record<string, any> = { ...current.profile };
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      if (key === 'businessInfo') profile.businessInfo = { ...current.profile.businessInfo, ...(value as object) };
      else profile[key] = value;
    }
    const errors = checkProfile(customerType, profile);
    checkCurrencies(platform, currencies, errors);
    if (errors.length) throw invalidInput('The customer update is not valid.', errors);
    checkConsent(platform, endUserTermsConsent);
    const repo = customerRepo(ctx);
    let uma = current.umaAddress;
    if (umaAddress !== undefined && umaAddress !== current.umaAddress) {
      checkUmaAddress(umaAddress);
      const holder = repo.activeIdByUmaAddress(platform.id, umaAddress);
      if (holder && holder !== current.id) throw new ApiError(409, 'UMA_ADDRESS_EXISTS', `The UMA address ${umaAddress} is already taken.`, { umaAddress });
      uma = umaAddress;
    }
    const changed = new Set<ContactChannel>();
    if (profile.email !== current.profile.email) changed.add('email');
    if (profile.phoneNumber !== current.profile.phoneNumber) changed.add('phone');
    const region = regionOf(profile);
    const record: CustomerRecord = {
      ...current,
      umaAddress: uma,
      region,
      currencies: currencies && currencies.length ? [...new Set(currencies)] : current.currencies,
      profile,
      consent: endUserTermsConsent ?? current.consent,
      contact: contactFor(region, profile, current.contact, changed),
      updatedAt: ctx.clock.iso(),
    };
    repo.update(toRow(record));
    if (accountsAllowed(platform, record)) provisionCustomerAccounts(ctx, platform, record);
    return record;
  });
}

/** `DELETE /customers/{id}`: marks the customer deleted (its platformCustomerId becomes free) and closes its accounts. */
export function deleteCustomer(ctx: SandboxContext, platform: Platform, customerId: string): CustomerRecord {
  return ctx.tx(() => {
    const current = findCustomer(ctx, platform.id, customerId);
    if (current.isDeleted) throw new ApiError(410, 'CUSTOMER_DELETED', `Customer ${customerId} was already deleted.`);
    const record: CustomerRecord = { ...current, isDeleted: true, updatedAt: ctx.clock.iso() };
    customerRepo(ctx).update(toRow(record));
    closeCustomerAccounts(ctx, platform.id, customerId);
    return record;
  });
}

/** `GET /customers` with the contract's filters: the page as JSON text, joined from the rows' stored wire JSON. */
export function listCustomersJson(ctx: SandboxContext, platform: Platform, query: CustomerListQuery): string {
  const iso = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());
  const filter: CustomerFilter = {
    platformId: platform.id,
    platformCustomerId: query.platformCustomerId,
    customerType: query.customerType,
    createdAfter: iso(query.createdAfter),
    createdBefore: iso(query.createdBefore),
    updatedAfter: iso(query.updatedAfter),
    updatedBefore: iso(query.updatedBefore),
    region: query.region,
    currency: query.currency,
    umaAddress: query.umaAddress,
    includeDeleted: query.isIncludingDeleted ?? false,
  };
  const repo = customerRepo(ctx);
  const wires = (request: PageRequest): string[] => {
    const page = repo.pageWires(filter, request);
    // A row without its wire JSON (written by SQL outside the repo) is presented here.
    return page.includes(null) ? repo.page(filter, request).map((row) => row.wire ?? wireOfRow(row)) : (page as string[]);
  };
  return paginateJson(query, wires, () => repo.count(filter));
}

/**
 * Moves a customer to a KYC/KYB status and records the matching `CUSTOMER.KYC_*` / `KYB_*`
 * event (HOLD has none). The one path for every decision: verifications, the hosted flow and
 * the CLI. Call it inside the caller's transaction. A status equal to the current one is a no-op.
 */
export function setCustomerStatus(ctx: SandboxContext, platform: Platform, customerId: string, status: KycStatus): CustomerRecord {
  return ctx.tx(() => {
    const current = getCustomer(ctx, platform.id, customerId);
    if (current.kycStatus === status) return current;
    const record: CustomerRecord = { ...current, kycStatus: status, updatedAt: ctx.clock.iso() };
    customerRepo(ctx).update(toRow(record));
    const type = statusEventType(record.customerType, status);
    if (type) ctx.outbox.append(platform.id, type, record.id, presentCustomer(record));
    return record;
  });
}

const channelField: Record<ContactChannel, string> = { email: 'email', phone: 'phoneNumber' };

function requiredChannel(record: CustomerRecord, channel: ContactChannel): void {
  if (!record.contact?.[channel]) {
    throw new ApiError(
      409,
      ErrorCode.CONFLICT,
      `The ${channel} channel of customer ${record.id} does not need verifying (contact channels are verified for customers in the EU that have a ${channelField[channel]}).`,
    );
  }
}

/** `POST /customers/{id}/verify-email|verify-phone`: (re)sends a one-time code; 409 for a channel that is not required or already verified. */
export function sendContactCode(ctx: SandboxContext, platform: Platform, customerId: string, channel: ContactChannel): void {
  ctx.tx(() => {
    const current = getCustomer(ctx, platform.id, customerId);
    requiredChannel(current, channel);
    if (current.contact?.[channel] === 'VERIFIED') {
      throw new ApiError(409, ErrorCode.CONFLICT, `The ${channel} channel of customer ${customerId} is already VERIFIED.`);
    }
    const contact: ContactState = { ...current.contact, [`${channel}CodeSentAt`]: ctx.clock.iso() };
    customerRepo(ctx).update(toRow({ ...current, contact }));
  });
}

/** `POST /customers/{id}/verify-email|verify-phone/confirm`: the sandbox code `123456` marks the channel VERIFIED. */
export function confirmContactCode(ctx: SandboxContext, platform: Platform, customerId: string, channel: ContactChannel, code: string): CustomerRecord {
  return ctx.tx(() => {
    const current = getCustomer(ctx, platform.id, customerId);
    requiredChannel(current, channel);
    if (current.contact?.[channel] === 'VERIFIED') return current;
    if (!current.contact?.[`${channel}CodeSentAt`]) {
      throw invalidInput(`No ${channel} code was sent yet; call POST /customers/${customerId}/verify-${channel} first.`, [
        { field: 'code', message: 'Request a code first.' },
      ]);
    }
    // sandbox-rules.md "Codes and literals": contact verification confirm code.
    if (code !== CONTACT_VERIFICATION_CODE) {
      throw invalidInput('The verification code is not correct.', [{ field: 'code', message: 'The code does not match the one sent (sandbox: 123456).' }]);
    }
    recordRule(ctx, platform.id, contactCodeRules.id(CONTACT_VERIFICATION_CODE));
    const record: CustomerRecord = { ...current, contact: { ...current.contact, [channel]: 'VERIFIED' }, updatedAt: ctx.clock.iso() };
    customerRepo(ctx).update(toRow(record));
    return record;
  });
}

/**
 * The money-movement gate for customer-scoped operations: `404 USER_NOT_FOUND` for an unknown
 * customer; `403 END_USER_TERMS_NOT_ACCEPTED` on an unregulated platform without consent on
 * file; `403 USER_NOT_READY` while KYC/KYB is not APPROVED (API.md: funding and money movement
 * are blocked while PENDING). Returns the customer when it may move money.
 */
export function assertCustomerCanMoveMoney(ctx: SandboxContext, platform: Platform, customerId: string): CustomerRecord {
  const customer = getCustomer(ctx, platform.id, customerId);
  if (!platform.regulated && !customer.consent) {
    throw new ApiError(403, ErrorCode.END_USER_TERMS_NOT_ACCEPTED, `Customer ${customerId} has not accepted the End User Terms; record endUserTermsConsent with PATCH /customers/${customerId}.`);
  }
  if (customer.kycStatus !== 'APPROVED') {
    const what = customer.customerType === 'INDIVIDUAL' ? 'KYC' : 'KYB';
    throw new ApiError(403, 'USER_NOT_READY', `Customer ${customerId} cannot move money until ${what} is APPROVED (it is ${customer.kycStatus}).`, {
      kycStatus: customer.kycStatus,
    });
  }
  return customer;
}

/**
 * SCA 2FA reset (issue 14): completing an `SMS_OTP` reset enrolls the new mobile number as the
 * customer's `phoneNumber`, already verified (the liveness check stands in for the code).
 */
export function enrollVerifiedPhone(ctx: SandboxContext, platform: Platform, customerId: string, phoneNumber: string): CustomerRecord {
  return ctx.tx(() => {
    const current = getCustomer(ctx, platform.id, customerId);
    const contact: ContactState | undefined = EU_COUNTRIES.has(current.region ?? '') ? { ...current.contact, phone: 'VERIFIED' } : current.contact;
    const record: CustomerRecord = { ...current, profile: { ...current.profile, phoneNumber }, contact, updatedAt: ctx.clock.iso() };
    customerRepo(ctx).update(toRow(record));
    return record;
  });
}

/** Computes the stored wire JSON of every customer of a platform again (its rows were just restored from a snapshot). */
export function refillCustomerWires(ctx: SandboxContext, platformId: string): void {
  customerRepo(ctx).refillWires(platformId, wireOfRow);
}

/** Deletes every customer of a platform (sandbox reset). */
export function removePlatformCustomers(ctx: SandboxContext, platformId: string): void {
  customerRepo(ctx).removePlatform(platformId);
}
