import { createHash } from 'node:crypto';
import { perContext } from '../core/per-context.js';
import { ApiError, ErrorCode, type FieldError, invalidInput } from '../core/errors.js';
import { currencies, currencyOf } from '../core/money.js';
import type { SandboxContext } from '../store/context.js';
import { hashSecret, hashSecretSync, LEGACY_PREFIX, needsRehash, VerifiedSecrets, verifySecret, verifySecretSync } from '../crypto/secret-hash.js';
import { defaultCurrencies, defaultPlatformConfig } from './default-platform.js';
import { PlatformRepo, type PlatformRow } from './repo.js';
import type { PlatformConfigData, PlatformConfigUpdate } from './schemas.js';

export type { PlatformConfigData };

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

/** The stored form of a secret before scrypt: its unsalted SHA-256 (kept only to migrate old databases). */
const legacyHash = (secret: string) => `${LEGACY_PREFIX}${createHash('sha256').update(secret, 'utf8').digest('hex')}`;

/** A stored secret in the clear (a database from before secrets were hashed at all). */
const isPlaintext = (stored: string) => !stored.startsWith(LEGACY_PREFIX) && !stored.startsWith('$scrypt$');

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
  /** Platforms and their stored secret hashes by client id; cleared by every platform write (reads repopulate it). */
  private readonly cache = new Map<string, { stored: string; platform: Platform }>();
  private readonly byIdCache = new Map<string, Platform>();
  /** Client credentials verified lately (see VerifiedSecrets): kept across platform writes, since each names the hash it matched. */
  private readonly verified = new VerifiedSecrets();

  constructor(private readonly ctx: SandboxContext) {
    this.repo = new PlatformRepo(ctx.db);
  }

  private entryOf(clientId: string): { stored: string; platform: Platform } | undefined {
    let entry = this.cache.get(clientId);
    if (!entry) {
      const row = this.repo.byClientId(clientId);
      if (row) {
        entry = { stored: row.client_secret, platform: toPlatform(row) };
        this.cache.set(clientId, entry);
      }
    }
    return entry;
  }

  /**
   * The platform whose credentials these are, or undefined. The secret is checked against its
   * salted scrypt hash (in the thread pool, constant-time compare) the first time, then from the
   * in-memory record of verified credentials, which costs what a SHA-256 costs. An unknown
   * client id answers undefined at once: the caller tries its other credentials, then spends a
   * decoy scrypt (see `basicAuth`) so the timing does not tell which ids exist. A hash in an
   * older form (unsalted SHA-256) is replaced by a scrypt hash on its first successful use.
   */
  async authenticate(clientId: string, clientSecret: string): Promise<Platform | undefined> {
    const entry = this.entryOf(clientId);
    if (!entry) return undefined;
    const known = this.verifiedPlatform(clientId, clientSecret);
    if (known) return known;
    if (!(await verifySecret(clientSecret, entry.stored))) return undefined;
    let stored = entry.stored;
    if (needsRehash(stored)) {
      const upgraded = await hashSecret(clientSecret, this.ctx.random);
      // Only over the hash just verified: a secret changed meanwhile is left as it is.
      if (this.repo.replaceSecret(entry.platform.id, stored, upgraded)) stored = upgraded;
      this.cache.delete(clientId);
    }
    const current = this.entryOf(clientId);
    // The secret changed while it was verified (a restart with another secret): check again.
    if (!current || current.stored !== stored) return current ? this.authenticate(clientId, clientSecret) : undefined;
    this.verified.remember(clientId, clientSecret, stored);
    return current.platform;
  }

  /**
   * The platform of credentials verified before (the in-memory record `authenticate` keeps: a
   * SHA-256 and a constant-time compare), at once; undefined when they were not (or not lately):
   * `authenticate` decides then.
   */
  verifiedPlatform(clientId: string, clientSecret: string): Platform | undefined {
    const entry = this.entryOf(clientId);
    return entry && this.verified.has(clientId, clientSecret, entry.stored) ? entry.platform : undefined;
  }

  /** The platform with this client id (no credential check: for internal lookups and tests). */
  byClientId(clientId: string): Platform | undefined {
    return this.entryOf(clientId)?.platform;
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

  /**
   * Hashes any client secret a database from before hashing still holds in clear (startup):
   * as the legacy SHA-256 form, cheap here, replaced by scrypt on the secret's first use.
   */
  hashStoredSecrets(): void {
    this.ctx.tx(() => {
      for (const row of this.repo.list()) {
        if (isPlaintext(row.client_secret)) this.repo.replaceSecret(row.id, row.client_secret, legacyHash(row.client_secret));
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

  /**
   * Creates a platform with the default sandbox configuration; `409 CONFLICT` if the client id is
   * taken. The secret is hashed (scrypt) in the thread pool first.
   */
  async create(input: NewPlatform): Promise<Platform> {
    const stored = await hashSecret(input.clientSecret, this.ctx.random);
    const platform = this.insert(input, stored);
    this.verified.remember(input.clientId, input.clientSecret, stored);
    return platform;
  }

  private insert(input: NewPlatform, stored: string): Platform {
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
        client_secret: stored,
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

  /**
   * The platform with these credentials, created with defaults if it does not exist (startup,
   * before the server listens: scrypt runs on this thread, about 45 ms).
   */
  ensure(input: NewPlatform): Platform {
    const row = this.repo.byClientId(input.clientId);
    if (!row) {
      const stored = hashSecretSync(input.clientSecret, this.ctx.random);
      const platform = this.insert(input, stored);
      this.verified.remember(input.clientId, input.clientSecret, stored);
      return platform;
    }
    let stored = row.client_secret;
    const matches = isPlaintext(stored) ? stored === input.clientSecret : verifySecretSync(input.clientSecret, stored);
    if (!matches || needsRehash(stored)) {
      // Restarted with a new secret for the same client id (which counts as an update), or the
      // same secret kept in an older form: the given secret is stored, hashed with scrypt.
      stored = hashSecretSync(input.clientSecret, this.ctx.random);
      this.repo.updateSecret(row.id, stored, matches ? row.updated_at : this.ctx.clock.iso());
      this.invalidate();
    }
    this.verified.remember(input.clientId, input.clientSecret, stored);
    return toPlatform(row);
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
