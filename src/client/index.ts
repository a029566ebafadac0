/**
 * A small HTTP client of a running sandbox, shared by the CLI and the programmatic helpers of
 * `startSandbox`: every helper goes through the same contract and control-plane calls a user
 * could make with curl. No server code is imported here.
 */
import { currencyOf } from '../core/money.js';

/** The default platform's credentials and the address of a sandbox started without flags. */
export const DEFAULT_CLIENT_ID = 'sandbox-client-id';
export const DEFAULT_CLIENT_SECRET = 'sandbox-client-secret';
export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** Where a sandbox answers and whose credentials to use. */
export interface SandboxEndpoint {
  /** `http://127.0.0.1:8080` (the API is under `/2025-10-13`, the control plane under `/_sandbox`). */
  origin: string;
  clientId: string;
  clientSecret: string;
  /** Sent as `User-Agent`; the request log marks the CLI's own requests by it. */
  userAgent?: string;
}

/** A non-2xx answer of the sandbox, with its error envelope. */
export class SandboxHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }

  /** An error the client decides itself, worded like the sandbox's (`404 REFERENCE_NOT_FOUND ...`). */
  static of(status: number, code: string, text: string): SandboxHttpError {
    return new SandboxHttpError(status, code, `${status} ${code} ${text}`, undefined);
  }
}

/** The sandbox could not be reached at all. */
export class SandboxUnreachableError extends Error {}

/** The shape of an id of `kind`, for messages: `Customer:019a4f2c-8b1e-7c3d-9f00-1234567890ab`. */
export const idShape = (kind: string) => `${kind}:019a4f2c-8b1e-7c3d-9f00-1234567890ab`;

/** `true` when `id` looks like an id of `kind` (`Customer:<uuid>`). */
export const isIdOf = (kind: string, id: string) => new RegExp(`^${kind}:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, 'i').test(id);

/** An amount in a currency, as the contract shows it. */
export interface Money {
  amount: number;
  currency: { code: string; decimals?: number };
}

/** An internal account as the contract shows it (the fields the helpers read). */
export interface InternalAccountView {
  id: string;
  customerId?: string;
  type: string;
  status: string;
  balance: Money;
  totalBalance: Money;
}

/** A customer as the contract shows it (the fields the helpers read). */
export interface CustomerView {
  id: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  platformCustomerId: string;
  kycStatus?: string;
  kybStatus?: string;
  fullName?: string;
  businessInfo?: { legalName?: string };
  isDeleted?: boolean;
  [key: string]: unknown;
}

/**
 * A KYC/KYB decision a sandbox reviewer can make. APPROVED and REJECTED are final: a customer
 * already APPROVED or REJECTED refuses any further decision (409 CONFLICT naming its status).
 * HOLD puts a customer under review on hold (more information may be asked for).
 */
export type KycDecisionInput = 'APPROVED' | 'REJECTED' | 'HOLD';

/** Options of a new platform (`POST /_sandbox/platforms`). */
export interface NewPlatformOptions {
  clientId: string;
  clientSecret: string;
  /** `false` makes an unregulated platform (KYC by the service, End User Terms consent required). Default `true`. */
  regulated?: boolean;
  /** Businesses resolve without documents or owners. Default `false`. */
  paperworkSkipping?: boolean;
  /** Travel-rule counterparty rules for self-custody wallets. Default `false`. */
  counterpartyRules?: boolean;
  webhookEndpoint?: string;
}

/** A created platform. */
export interface PlatformView {
  id: string;
  clientId: string;
  regulated: boolean;
  settings: Record<string, unknown>;
  createdAt: string;
}

/** A webhook event, exactly as it is delivered: `{id, type, timestamp, data}`. */
export interface WebhookEvent<T = any> {
  id: string;
  type: string;
  timestamp: string;
  data: T;
}

/**
 * `12.50` in a currency of `decimals` decimals as an integer in its smallest unit (1250).
 * Refuses more decimals than the currency has, signs, and anything that is not a number.
 */
export function toMinorUnits(text: string, decimals: number, code = 'the currency'): number {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new RangeError(`amount "${text}" is not a positive number such as 12.50`);
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    throw new RangeError(`amount "${text}" has ${fraction.length} decimals; ${code} has ${decimals}${decimals === 0 ? ' (whole units only)' : ''}`);
  }
  const minor = BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount "${text}" is too large`);
  return Number(minor);
}

/** `12345` cents as `123.45 USD`. */
export function formatMoney({ amount, currency }: Money): string {
  const decimals = currency.decimals ?? currencyOf(currency.code)?.decimals ?? 2;
  const sign = amount < 0 ? '-' : '';
  const digits = String(Math.abs(amount)).padStart(decimals + 1, '0');
  const whole = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return `${sign}${whole} ${currency.code}`;
}

/** The HTTP client. Errors are `SandboxHttpError` (an answer) or `SandboxUnreachableError` (none). */
export class SandboxClient {
  constructor(readonly endpoint: SandboxEndpoint) {}

  /** `Authorization` and `User-Agent` headers of every call. */
  headers(): Record<string, string> {
    const { clientId, clientSecret, userAgent } = this.endpoint;
    return {
      Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'User-Agent': userAgent ?? 'service-sandbox-client',
    };
  }

  /** Calls `path` (starting `/2025-10-13` or `/_sandbox`) and returns the parsed JSON. */
  async request<T = unknown>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
    const headers = { ...this.headers(), ...extraHeaders };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.endpoint.origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw new SandboxUnreachableError(`no sandbox is answering at ${this.endpoint.origin}`);
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    if (!response.ok) {
      const error = json as { code?: string; message?: string; details?: { errors?: { field: string; message: string }[] } } | undefined;
      const first = error?.details?.errors?.[0];
      const field = first ? ` (${first.field}: ${first.message})` : '';
      throw new SandboxHttpError(response.status, error?.code, `${response.status} ${error?.code ?? ''} ${error?.message ?? text}${field}`.replace(/\s+/g, ' ').trim(), json);
    }
    return json as T;
  }

  /** Every page of a list operation. */
  async all<T>(path: string, params: Record<string, string | undefined> = {}): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    do {
      const query = new URLSearchParams({ limit: '100' });
      for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value);
      if (cursor) query.set('cursor', cursor);
      const page = await this.request<{ data: T[]; nextCursor?: string; hasMore?: boolean }>('GET', `${path}?${query}`);
      out.push(...page.data);
      cursor = page.hasMore === false ? undefined : page.nextCursor;
    } while (cursor);
    return out;
  }

  /** A customer by id (`Customer:...`) or by `platformCustomerId`. */
  async customer(idOrPlatformId: string): Promise<CustomerView> {
    if (idOrPlatformId.startsWith('Customer:')) return this.request<CustomerView>('GET', `/2025-10-13/customers/${encodeURIComponent(idOrPlatformId)}`);
    const page = await this.request<{ data: CustomerView[] }>('GET', `/2025-10-13/customers?platformCustomerId=${encodeURIComponent(idOrPlatformId)}&limit=2`);
    const found = page.data.find((c) => c.platformCustomerId === idOrPlatformId);
    if (!found) {
      throw SandboxHttpError.of(404, 'REFERENCE_NOT_FOUND', `no customer with id or platformCustomerId "${idOrPlatformId}" (customer ids look like ${idShape('Customer')})`);
    }
    return found;
  }

  /** An internal account by id: the platform's own, or any customer's. */
  async internalAccount(id: string): Promise<InternalAccountView> {
    const own = await this.request<{ data: InternalAccountView[] }>('GET', '/2025-10-13/platform/internal-accounts');
    const found = own.data.find((a) => a.id === id) ?? (await this.all<InternalAccountView>('/2025-10-13/customers/internal-accounts')).find((a) => a.id === id);
    if (!found) throw SandboxHttpError.of(404, 'REFERENCE_NOT_FOUND', `no internal account ${id} on this platform (they look like ${idShape('InternalAccount')})`);
    return found;
  }

  /**
   * The internal account `target` names: an account id, or a customer (id or
   * `platformCustomerId`) plus a currency (optional when the customer has one account).
   */
  async resolveAccount(target: string, currency?: string): Promise<InternalAccountView> {
    if (target.startsWith('InternalAccount:')) {
      const account = await this.internalAccount(target);
      if (currency && account.balance.currency.code !== currency.toUpperCase()) {
        throw SandboxHttpError.of(400, 'INVALID_CURRENCY', `${target} holds ${account.balance.currency.code}, not ${currency.toUpperCase()}`);
      }
      return account;
    }
    const customer = await this.customer(target);
    const accounts = await this.all<InternalAccountView>('/2025-10-13/customers/internal-accounts', { customerId: customer.id });
    const code = currency?.toUpperCase();
    const matching = code ? accounts.filter((a) => a.balance.currency.code === code) : accounts;
    if (matching.length === 1) return matching[0]!;
    const held = [...new Set(accounts.map((a) => a.balance.currency.code))].join(', ') || 'none yet';
    throw new SandboxHttpError(
      400,
      'INVALID_CURRENCY',
      code ? `${customer.id} has no ${code} internal account (its currencies: ${held})` : `${customer.id} has accounts in ${held}; name the currency`,
      undefined,
    );
  }

  /**
   * Credits an internal account at once (`POST /sandbox/internal-accounts/{id}/fund`). `amount`
   * is in the smallest unit when a number (`1250`), in major units when a string (`"12.50"`).
   */
  async fund(target: string, amount: number | string, currency?: string): Promise<InternalAccountView> {
    const account = await this.resolveAccount(target, currency);
    const code = account.balance.currency.code;
    const decimals = account.balance.currency.decimals ?? currencyOf(code)?.decimals ?? 2;
    const minor = typeof amount === 'number' ? amount : toMinorUnits(amount, decimals, code);
    if (!Number.isSafeInteger(minor) || minor <= 0) throw new RangeError(`amount ${amount} must be a positive whole number of the smallest unit`);
    return this.request<InternalAccountView>('POST', `/2025-10-13/sandbox/internal-accounts/${encodeURIComponent(account.id)}/fund`, { amount: minor });
  }

  /** Creates another platform with its own credentials (`POST /_sandbox/platforms`). */
  async createPlatform(options: NewPlatformOptions): Promise<PlatformView> {
    return this.request<PlatformView>('POST', '/_sandbox/platforms', options);
  }

  /** A reviewer's KYC/KYB decision (`POST /_sandbox/customers/{id}/kyc-decision`). */
  async decideKyc(customerId: string, decision: KycDecisionInput): Promise<{ customer: CustomerView; verification: { id: string; verificationStatus: string } | null }> {
    const customer = customerId.startsWith('Customer:') ? customerId : (await this.customer(customerId)).id;
    return this.request('POST', `/_sandbox/customers/${encodeURIComponent(customer)}/kyc-decision`, { decision });
  }

  /** Fires an event type the way the real flow does (`POST /_sandbox/webhooks/trigger`). */
  async trigger(type: string, resourceId?: string): Promise<WebhookEvent & { resourceId: string | null; status: string }> {
    const delivery = await this.request<{ id: string; type: string; timestamp: string; data: unknown; resourceId: string | null; status: string }>(
      'POST',
      '/_sandbox/webhooks/trigger',
      resourceId ? { type, resourceId } : { type },
    );
    return delivery;
  }
}
