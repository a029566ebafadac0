import { perContext } from '../../core/per-context.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, ErrorCode, type FieldError, invalidInput } from '../../core/errors.js';
import { currencies, currencyOf } from '../../core/money.js';
import type { SandboxContext } from '../../context.js';
import { defaultCurrencies, defaultPlatformConfig } from '../../sandbox/default-platform.js';
import { PlatformRepo, type PlatformRow } from './repo.js';
import type { PlatformConfigUpdate } from './schemas.js';

/** The stored configuration (the response adds id, regulation flag and timestamps). */
export interface PlatformConfigData {
  umaDomain: string;
  proxyUmaSubdomain: string;
  webhookEndpoint?: string;
  supportedCurrencies: {
    currencyCode: string;
    minAmount: number;
    maxAmount: number;
    requiredCounterpartyFields: { name: string; mandatory: boolean }[];
    providerRequiredCustomerFields?: string[];
    providerRequiredCounterpartyCustomerFields?: string[];
    enabledTransactionTypes: string[];
  }[];
  embeddedWalletConfig?: Record<string, unknown>;
  cardTokenization2faConfig?: Record<string, unknown> & { email?: Record<string, unknown>; sms?: Record<string, unknown> };
  feeConfigs: {
    feeType: string;
    sourceCurrency: string;
    variableFeeBps: number;
    fixedFee: { amount: number; currency: string };
  }[];
}

/** Sandbox-only platform settings; set through `POST /_sandbox/platforms`. */
export interface PlatformSettings {
  /** KYB paperwork skipping: a registration-number suffix resolves before packet validation. */
  paperworkSkipping: boolean;
  /** Counterparty rules (e.g. EU travel rule): self-custody wallets need `ownershipType`, FIRST_PARTY ones ownership verification. */
  counterpartyRules: boolean;
}

/** A platform as the services see it. */
export interface Platform {
  id: string;
  clientId: string;
  regulated: boolean;
  settings: PlatformSettings;
  configId: string;
  config: PlatformConfigData;
  createdAt: string;
  updatedAt: string;
}

/** Options for a new platform. */
export interface NewPlatform {
  clientId: string;
  clientSecret: string;
  regulated?: boolean;
  settings?: Partial<PlatformSettings>;
  webhookEndpoint?: string;
}

const defaultSettings: PlatformSettings = { paperworkSkipping: false, counterpartyRules: false };

// The provider decides the read-only per-currency fields; a PATCH cannot change them.
const providerFields = new Map(
  defaultCurrencies.map((c) => [
    c.currencyCode,
    { providerRequiredCustomerFields: c.providerRequiredCustomerFields, providerRequiredCounterpartyCustomerFields: c.providerRequiredCounterpartyCustomerFields },
  ]),
);

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** How a client secret is stored: its SHA-256, never the secret itself. */
const SECRET_PREFIX = 'sha256:';
const storedSecret = (secret: string) => `${SECRET_PREFIX}${digest(secret).toString('hex')}`;
/** The digest a stored secret holds (a row from before hashing holds the secret itself). */
const storedDigest = (stored: string) => (stored.startsWith(SECRET_PREFIX) ? Buffer.from(stored.slice(SECRET_PREFIX.length), 'hex') : digest(stored));

const toPlatform = (row: PlatformRow): Platform => ({
  id: row.id,
  clientId: row.client_id,
  regulated: row.regulated === 1,
  settings: { ...defaultSettings, ...(JSON.parse(row.settings) as Partial<PlatformSettings>) },
  configId: row.config_id,
  config: JSON.parse(row.config) as PlatformConfigData,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Platforms, their credentials and their configuration. */
export class PlatformService {
  private readonly repo: PlatformRepo;
  /** Authenticated platforms by client id; cleared by every platform write (reads repopulate it). */
  private readonly cache = new Map<string, { secretDigest: Buffer; platform: Platform }>();
  private readonly byIdCache = new Map<string, Platform>();

  constructor(private readonly ctx: SandboxContext) {
    this.repo = new PlatformRepo(ctx.db);
  }

  /**
   * The platform whose credentials these are, or undefined. The secret is compared in
   * constant time (over SHA-256 digests, so lengths do not leak either).
   */
  authenticate(clientId: string, clientSecret: string): Platform | undefined {
    let entry = this.cache.get(clientId);
    if (!entry) {
      const row = this.repo.byClientId(clientId);
      if (row) {
        entry = { secretDigest: storedDigest(row.client_secret), platform: toPlatform(row) };
        this.cache.set(clientId, entry);
      }
    }
    const ok = timingSafeEqual(entry ? entry.secretDigest : digest('no-such-platform'), digest(clientSecret));
    return entry && ok ? entry.platform : undefined;
  }

  byId(id: string): Platform | undefined {
    const cached = this.byIdCache.get(id);
    if (cached) return cached;
    const row = this.repo.byId(id);
    if (!row) return undefined;
    const platform = toPlatform(row);
    this.byIdCache.set(id, platform);
    return platform;
  }

  /** Hashes any client secret a database from before hashing still holds in clear (startup). */
  hashStoredSecrets(): void {
    this.ctx.tx(() => {
      for (const row of this.repo.list()) {
        if (!row.client_secret.startsWith(SECRET_PREFIX)) this.repo.updateSecret(row.id, storedSecret(row.client_secret), row.updated_at);
      }
    });
    this.invalidate();
  }

  /** Drops the cached platforms (after a write, or a rolled-back fixture load). */
  invalidate(): void {
    this.cache.clear();
    this.byIdCache.clear();
  }

  list(): Platform[] {
    return this.repo.list().map(toPlatform);
  }

  /** Creates a platform with the default sandbox configuration; `409 CONFLICT` if the client id is taken. */
  create(input: NewPlatform): Platform {
    return this.ctx.tx(() => {
      if (this.repo.byClientId(input.clientId)) {
        throw new ApiError(409, ErrorCode.CONFLICT, `A platform with clientId ${input.clientId} already exists.`);
      }
      const now = this.ctx.clock.iso();
      const config: PlatformConfigData = structuredClone(defaultPlatformConfig);
      if (input.webhookEndpoint) config.webhookEndpoint = input.webhookEndpoint;
      const row: PlatformRow = {
        id: this.ctx.ids.next('Platform'),
        client_id: input.clientId,
        client_secret: storedSecret(input.clientSecret),
        regulated: input.regulated === false ? 0 : 1,
        settings: JSON.stringify({ ...defaultSettings, ...input.settings }),
        config_id: this.ctx.ids.next('PlatformConfig'),
        config: JSON.stringify(config),
        created_at: now,
        updated_at: now,
      };
      this.repo.insert(row);
      this.invalidate();
      if (config.webhookEndpoint) this.sendTestWebhook(row.id);
      return toPlatform(row);
    });
  }

  /** The platform with these credentials, created with defaults if it does not exist (startup). */
  ensure(input: NewPlatform): Platform {
    return this.ctx.tx(() => {
      const row = this.repo.byClientId(input.clientId);
      if (!row) return this.create(input);
      if (!timingSafeEqual(storedDigest(row.client_secret), digest(input.clientSecret)) || !row.client_secret.startsWith(SECRET_PREFIX)) {
        // Restarted with a new secret for the same client id (or a database from before secrets
        // were hashed): the given one is stored, hashed.
        this.repo.updateSecret(row.id, storedSecret(input.clientSecret), this.ctx.clock.iso());
        this.invalidate();
      }
      return toPlatform(row);
    });
  }

  /** `GET /config`: the contract's PlatformConfig. */
  getConfig(platform: Platform): Record<string, unknown> {
    const { config } = platform;
    const out: Record<string, unknown> = {
      id: platform.configId,
      umaDomain: config.umaDomain,
      proxyUmaSubdomain: config.proxyUmaSubdomain,
    };
    if (config.webhookEndpoint !== undefined) out.webhookEndpoint = config.webhookEndpoint;
    out.supportedCurrencies = config.supportedCurrencies;
    out.isRegulatedFinancialInstitution = platform.regulated;
    if (config.embeddedWalletConfig) out.embeddedWalletConfig = config.embeddedWalletConfig;
    if (config.cardTokenization2faConfig) out.cardTokenization2faConfig = config.cardTokenization2faConfig;
    out.feeConfigs = config.feeConfigs;
    out.createdAt = platform.createdAt;
    out.updatedAt = platform.updatedAt;
    return out;
  }

  /** `PATCH /config`: applies the update with the contract's merge rules and returns the new config. */
  updateConfig(platform: Platform, update: PlatformConfigUpdate): Record<string, unknown> {
    // The contract's FeeConfig: "Only USD is accepted today; other currencies return a NOT_IMPLEMENTED error."
    const unsupported = update.feeConfigs?.findIndex((fee) => fee.sourceCurrency !== 'USD') ?? -1;
    if (unsupported >= 0) {
      throw new ApiError(501, ErrorCode.NOT_IMPLEMENTED, `Fee configs for sourceCurrency ${update.feeConfigs![unsupported]!.sourceCurrency} are not implemented; only USD is accepted today.`, {
        field: `feeConfigs.${unsupported}.sourceCurrency`,
      });
    }
    return this.ctx.tx(() => {
      const current = this.byId(platform.id);
      if (!current) throw new ApiError(401, ErrorCode.UNAUTHORIZED, 'The platform no longer exists.');
      const config = structuredClone(current.config);
      if (update.umaDomain !== undefined) config.umaDomain = update.umaDomain;
      const endpointChanged = update.webhookEndpoint !== undefined && update.webhookEndpoint !== current.config.webhookEndpoint;
      if (update.webhookEndpoint !== undefined) config.webhookEndpoint = update.webhookEndpoint;
      if (update.supportedCurrencies) config.supportedCurrencies = this.checkCurrencies(update.supportedCurrencies);
      if (update.embeddedWalletConfig) {
        config.embeddedWalletConfig = { ...config.embeddedWalletConfig, ...update.embeddedWalletConfig };
      }
      if (update.cardTokenization2faConfig) {
        const { email, sms, ...rest } = update.cardTokenization2faConfig;
        const previous = config.cardTokenization2faConfig ?? {};
        config.cardTokenization2faConfig = { ...previous, ...rest };
        if (email) config.cardTokenization2faConfig.email = { ...previous.email, ...email };
        if (sms) config.cardTokenization2faConfig.sms = { ...previous.sms, ...sms };
      }
      if (update.feeConfigs) config.feeConfigs = mergeFeeConfigs(config.feeConfigs, update.feeConfigs);
      const now = this.ctx.clock.iso();
      this.repo.updateConfig(platform.id, JSON.stringify(config), now);
      this.invalidate();
      if (endpointChanged) this.sendTestWebhook(platform.id);
      return this.getConfig({ ...current, config, updatedAt: now });
    });
  }

  /**
   * The contract's test-webhook: sent once when a webhook endpoint is configured or changed
   * (platform creation with one, `PATCH /config`, `--webhook-url`), in the same transaction.
   */
  private sendTestWebhook(platformId: string): void {
    this.ctx.outbox.append(platformId, 'TEST', null, {});
  }

  /** Sets sandbox-only settings of a platform. */
  updateSettings(platform: Platform, settings: Partial<PlatformSettings>): Platform {
    const next = { ...platform.settings, ...settings };
    this.repo.updateSettings(platform.id, JSON.stringify(next), this.ctx.clock.iso());
    this.invalidate();
    return { ...platform, settings: next };
  }

  /** Puts a platform's configuration back to the defaults (sandbox reset); credentials stay. */
  resetConfig(platform: Platform): void {
    const config: PlatformConfigData = structuredClone(defaultPlatformConfig);
    if (platform.config.webhookEndpoint) config.webhookEndpoint = platform.config.webhookEndpoint;
    this.repo.updateConfig(platform.id, JSON.stringify(config), this.ctx.clock.iso());
    this.invalidate();
  }

  private checkCurrencies(list: NonNullable<PlatformConfigUpdate['supportedCurrencies']>): PlatformConfigData['supportedCurrencies'] {
    const seen = new Set<string>();
    const errors: FieldError[] = [];
    list.forEach((entry, index) => {
      if (!currencyOf(entry.currencyCode)) {
        errors.push({ field: `supportedCurrencies.${index}.currencyCode`, constraint: { enum: [...currencies.keys()] }, message: `${entry.currencyCode} is not a currency the service supports.` });
      }
      if (seen.has(entry.currencyCode)) {
        errors.push({ field: `supportedCurrencies.${index}.currencyCode`, constraint: { unique: true }, message: `${entry.currencyCode} is listed twice.` });
      }
      seen.add(entry.currencyCode);
      if (entry.minAmount > entry.maxAmount) {
        errors.push({ field: `supportedCurrencies.${index}.minAmount`, constraint: { maximum: entry.maxAmount }, message: 'minAmount must not be greater than maxAmount.' });
      }
    });
    if (errors.length) {
      throw invalidInput('The supported currencies are not valid.', errors);
    }
    return list.map((entry) => {
      const provider = providerFields.get(entry.currencyCode);
      return {
        ...entry,
        ...(provider?.providerRequiredCustomerFields ? { providerRequiredCustomerFields: provider.providerRequiredCustomerFields } : {}),
        ...(provider?.providerRequiredCounterpartyCustomerFields
          ? { providerRequiredCounterpartyCustomerFields: provider.providerRequiredCounterpartyCustomerFields }
          : {}),
      };
    });
  }
}

/** Merge-by-key upsert on `(feeType, sourceCurrency)`; zero variable and fixed fees remove the entry. */
function mergeFeeConfigs(
  current: PlatformConfigData['feeConfigs'],
  updates: PlatformConfigData['feeConfigs'],
): PlatformConfigData['feeConfigs'] {
  const byKey = new Map(current.map((fee) => [`${fee.feeType}:${fee.sourceCurrency}`, fee]));
  for (const fee of updates) {
    const key = `${fee.feeType}:${fee.sourceCurrency}`;
    if (fee.variableFeeBps === 0 && fee.fixedFee.amount === 0) byKey.delete(key);
    else byKey.set(key, fee);
  }
  return [...byKey.values()];
}

/** The platform service of a sandbox context (one per context). */
export const platformService = perContext((ctx: SandboxContext) => new PlatformService(ctx));
