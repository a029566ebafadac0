import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bech32m } from '@scure/base';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auditLedger } from '../../src/resources/ledger/index.js';
import { platformService } from '../../src/tenancy/index.js';
import { stablecoinLedger } from '../../src/resources/stablecoins/index.js';
import { individual, unique, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();

const key = () => ({ headers: { 'Idempotency-Key': randomUUID() } });
const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', countryOfResidence: 'US', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } };
const sparkAddress = () =>
  bech32m.encode('spark', bech32m.toWords(new Uint8Array([0x0a, 0x21, ...secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)])), 1023);

const platformIdOf = (api: Api) => platformService(s.sandbox.context).byClientId(api.clientId)!.id;

async function link(api: Api, apiClientId = unique('brale')) {
  const res = await api.post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId, apiClientSecret: 'brale-secret' }, key());
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function register(api: Api, extra: Record<string, unknown> = {}) {
  const res = await api.post('/stablecoins', { providerTokenIdentifier: 'SBC', networkTokenIdentifier: unique('btkn'), network: 'SPARK', ...extra }, key());
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A platform with a link, an ENABLED stablecoin, a Spark wallet and a USD bank account. */
async function enabledSetup() {
  const api = await s.api.newPlatform();
  await link(api);
  const coin = await register(api);
  expect((await api.post(`/_sandbox/stablecoins/${coin.id}/request-enablement`)).status).toBe(200);
  const enabled = await api.post(`/_sandbox/stablecoins/${coin.id}/service-operations-status`, { serviceOperationsStatus: 'ENABLED' });
  expect(enabled.status).toBe(200);
  const wallet = await api.post('/platform/external-accounts', { currency: 'BTC', accountInfo: { accountType: 'SPARK_WALLET', address: sparkAddress() } });
  expect(wallet.status, JSON.stringify(wallet.body)).toBe(201);
  const bank = await api.post('/platform/external-accounts', {
    currency: 'USD',
    accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456789', routingNumber: '021000021', bankName: 'Chase Bank', beneficiary: person },
  });
  expect(bank.status, JSON.stringify(bank.body)).toBe(201);
  return { api, coin, wallet: wallet.body.id as string, bank: bank.body.id as string, platformId: platformIdOf(api) };
}

describe('stablecoin provider accounts', () => {
  it('links, lists and gets; bad credentials, revoked links and selection are 4xx', async () => {
    const api = await s.api.newPlatform();
    const linked = await link(api);
    expect(linked).toMatchObject({ provider: 'BRALE', providerEnvironment: 'SANDBOX', status: 'ACTIVE' });
    expect(JSON.stringify(linked)).not.toContain('brale-secret');
    expect((await api.get(`/stablecoin-provider-accounts/${linked.id}`)).body.id).toBe(linked.id);
    expect((await api.get('/stablecoin-provider-accounts?status=ACTIVE')).body.data).toHaveLength(1);

    const invalid = await api.post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: 'key_invalid', apiClientSecret: 'x' }, key());
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('STABLECOIN_PROVIDER_ACCOUNT_INVALID');
    const multi = await api.post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: 'key_multi', apiClientSecret: 'x' }, key());
    expect(multi.status).toBe(400);
    const choice = multi.body.details.errors[0].constraint.enum[1];
    const chosen = await api.post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: 'key_multi', apiClientSecret: 'x', providerAccountId: choice }, key());
    expect(chosen.status).toBe(201);
    expect(chosen.body.providerAccountId).toBe(choice);
    expect((await api.post('/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: 'key_multi', apiClientSecret: 'x', providerAccountId: choice }, key())).status).toBe(409);
    expect((await api.get('/stablecoin-provider-accounts')).body.totalCount).toBe(2);

    const selection = await api.post('/stablecoins', { providerTokenIdentifier: 'SBC', networkTokenIdentifier: 'btkn1', network: 'SPARK' }, key());
    expect(selection.status).toBe(400);
    expect(selection.body.code).toBe('STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED');
    expect((await api.post(`/_sandbox/stablecoin-provider-accounts/${linked.id}/status`, { status: 'REVOKED' })).status).toBe(200);
    const revoked = await api.post('/stablecoins', { providerTokenIdentifier: 'SBC', networkTokenIdentifier: 'btkn1', network: 'SPARK', stablecoinProviderAccountId: linked.id }, key());
    expect(revoked.body.code).toBe('STABLECOIN_PROVIDER_ACCOUNT_REVOKED');
    const missing = await api.post('/stablecoins', { providerTokenIdentifier: 'SBC', networkTokenIdentifier: 'btkn1', network: 'SPARK', stablecoinProviderAccountId: 'StablecoinProviderAccount:nope' }, key());
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND');
    expect((await api.get('/stablecoins')).body.data).toHaveLength(0);
    const other = await s.api.newPlatform();
    expect((await other.get(`/stablecoin-provider-accounts/${linked.id}`)).status).toBe(404);
  });
});

describe('stablecoins', () => {
  it('registers, requests enablement twice, is ENABLED by the operator, then refuses further requests', async () => {
    const api = await s.api.newPlatform();
    const linked = await link(api);
    const coin = await register(api);
    expect(coin).toMatchObject({ issuanceStatus: 'PROVISIONED', serviceOperationsStatus: 'NOT_ENABLED', stablecoinProviderAccountId: linked.id, provider: 'BRALE' });
    expect(coin).not.toHaveProperty('currency');

    const notEnabled = await api.post(`/stablecoins/${coin.id}/mints`, { amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: 'ExternalAccount:x' } }, key());
    expect(notEnabled.status).toBe(409);

    for (let i = 0; i < 2; i += 1) {
      const requested = await api.post(`/_sandbox/stablecoins/${coin.id}/request-enablement`);
      expect(requested.status).toBe(200);
      expect(requested.body.serviceOperationsStatus).toBe('PENDING_APPROVAL');
    }
    expect((await api.get(`/stablecoins/${coin.id}`)).body.serviceOperationsStatus).toBe('PENDING_APPROVAL');
    const enabled = await api.post(`/_sandbox/stablecoins/${coin.id}/service-operations-status`, { serviceOperationsStatus: 'ENABLED' });
    expect(enabled.body).toMatchObject({ serviceOperationsStatus: 'ENABLED', currency: 'SBC' });
    const again = await api.post(`/_sandbox/stablecoins/${coin.id}/request-enablement`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('STABLECOIN_SERVICE_ENABLEMENT_NOT_REQUESTABLE');
    const got = await api.get(`/stablecoins/${coin.id}`);
    expect(got.body.serviceOperationsStatus).toBe('ENABLED');
    expect((await api.get('/stablecoins?serviceOperationsStatus=ENABLED')).body.data.map((c: { id: string }) => c.id)).toEqual([coin.id]);
    expect((await api.get('/stablecoins?serviceOperationsStatus=NOT_ENABLED')).body.data).toHaveLength(0);
    const duplicate = await api.post('/stablecoins', { providerTokenIdentifier: 'SBC', networkTokenIdentifier: coin.networkTokenIdentifier, network: 'SPARK' }, key());
    expect(duplicate.status).toBe(409);
    expect((await api.post('/stablecoins', { providerTokenIdentifier: 'SBC', networkTokenIdentifier: 'x', network: 'SPARK' })).status).toBe(400);
  });

  it('walks a token under provider review through PROVISIONING to PROVISIONED on the clock; the operator cannot enable it before', async () => {
    const api = await s.api.newPlatform();
    await link(api);
    const coin = await register(api, { providerTokenIdentifier: 'NEWCOIN_review' });
    expect(coin.issuanceStatus).toBe('PENDING_REVIEW');
    await api.post(`/_sandbox/stablecoins/${coin.id}/request-enablement`);
    const early = await api.post(`/_sandbox/stablecoins/${coin.id}/service-operations-status`, { serviceOperationsStatus: 'ENABLED' });
    expect(early.status).toBe(409);
    await api.advance(3600);
    expect((await api.get(`/stablecoins/${coin.id}`)).body.issuanceStatus).toBe('PROVISIONING');
    await api.advance(3600);
    expect((await api.get(`/stablecoins/${coin.id}`)).body.issuanceStatus).toBe('PROVISIONED');
    expect((await api.post(`/_sandbox/stablecoins/${coin.id}/service-operations-status`, { serviceOperationsStatus: 'ENABLED' })).body.serviceOperationsStatus).toBe('ENABLED');
    expect((await api.get('/stablecoins?issuanceStatus=PROVISIONED')).body.data).toHaveLength(1);
  });

  it('replays a mint for the same Idempotency-Key and refuses the key with another body', async () => {
    const { api, coin, wallet } = await enabledSetup();
    const headers = key();
    const body = { amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: wallet } };
    const first = await api.post(`/stablecoins/${coin.id}/mints`, body, headers);
    const replay = await api.post(`/stablecoins/${coin.id}/mints`, body, headers);
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.post(`/stablecoins/${coin.id}/mints`, { ...body, amount: '2000000' }, headers)).status).toBe(409);
    expect((await api.get(`/stablecoins/${coin.id}/operations`)).body.data).toHaveLength(1);
  });

  it('mints by wire: pending with funding instructions, then completed on the clock with the ledger consistent', async () => {
    const { api, coin, wallet, platformId } = await enabledSetup();
    const mint = await api.post(`/stablecoins/${coin.id}/mints`, { amount: '250000000', fundingSource: { type: 'WIRE' }, destination: { accountId: wallet } }, key());
    expect(mint.status, JSON.stringify(mint.body)).toBe(201);
    expect(mint.body).toMatchObject({ operationType: 'MINT', status: 'PENDING_FUNDING', amount: '250000000', fundingInstructions: { rail: 'WIRE', amount: '25000' } });
    expect(mint.body.expiresAt).toBeDefined();
    await api.advance(3 * 3600);
    expect((await api.get(`/stablecoin-operations/${mint.body.id}`)).body.status).toBe('PENDING_FUNDING');
    expect(stablecoinLedger(s.sandbox.context, coin.id)).toEqual({ reserveCents: 0, circulatingUnits: 0 });

    const funded = await api.post(`/_sandbox/stablecoin-operations/${mint.body.id}/fund`);
    expect(funded.body.status).toBe('PROCESSING');
    await api.advance(3600);
    const done = await api.get(`/stablecoin-operations/${mint.body.id}`);
    expect(done.body.status).toBe('COMPLETED');
    expect(stablecoinLedger(s.sandbox.context, coin.id)).toEqual({ reserveCents: 250_00, circulatingUnits: 250_000_000 });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
    expect((await api.post(`/_sandbox/stablecoin-operations/${mint.body.id}/fund`)).status).toBe(409);
  });

  it('burns to a fiat bank account, and covers every funding source; unfunded operations expire', async () => {
    const { api, coin, wallet, bank, platformId } = await enabledSetup();
    const ach = await api.post(`/stablecoins/${coin.id}/mints`, { amount: '100000000', fundingSource: { type: 'ACH_DEBIT', externalAccountId: bank }, destination: { accountId: wallet } }, key());
    expect(ach.body.status).toBe('PENDING_PROVIDER');
    const provider = await api.post(
      `/stablecoins/${coin.id}/mints`,
      { amount: '20000000', fundingSource: { type: 'PROVIDER_INTERNAL_BALANCE', sourceTokenIdentifier: 'USDC', cryptoNetwork: 'SPARK' }, destination: { accountId: wallet } },
      key(),
    );
    expect(provider.body.status).toBe('PENDING_PROVIDER');
    await api.advance(24 * 3600);
    expect(stablecoinLedger(s.sandbox.context, coin.id)).toEqual({ reserveCents: 120_00, circulatingUnits: 120_000_000 });

    const tooMuch = await api.post(`/stablecoins/${coin.id}/burns`, { amount: '500000000', source: { type: 'PROVIDER_INTERNAL_BALANCE' }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bank, rail: 'RTP_CREDIT' } }, key());
    expect(tooMuch.status).toBe(400);

    const burn = await api.post(`/stablecoins/${coin.id}/burns`, { amount: '30000000', source: { type: 'EXTERNAL_ACCOUNT' }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bank, rail: 'ACH_CREDIT' } }, key());
    expect(burn.status, JSON.stringify(burn.body)).toBe(201);
    expect(burn.body).toMatchObject({ operationType: 'BURN', status: 'PENDING_FUNDING', destination: { accountId: bank, rail: 'ACH_CREDIT' }, estimatedDelivery: { amount: '3000', currency: 'USD' } });
    expect(burn.body.fundingInstructions.address).toMatch(/^spark1/);
    await api.post(`/_sandbox/stablecoin-operations/${burn.body.id}/fund`);
    await api.advance(24 * 3600);
    expect((await api.get(`/stablecoin-operations/${burn.body.id}`)).body.status).toBe('COMPLETED');
    expect(stablecoinLedger(s.sandbox.context, coin.id)).toEqual({ reserveCents: 90_00, circulatingUnits: 90_000_000 });

    const rtp = await api.post(`/stablecoins/${coin.id}/burns`, { amount: '10000000', source: { type: 'PROVIDER_INTERNAL_BALANCE' }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bank, rail: 'RTP_CREDIT' } }, key());
    expect(rtp.body.status).toBe('PENDING_PROVIDER');
    const unfunded = await api.post(`/stablecoins/${coin.id}/burns`, { amount: '10000000', source: { type: 'EXTERNAL_ACCOUNT' }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bank, rail: 'WIRE' } }, key());
    await api.advance(8 * 24 * 3600);
    expect((await api.get(`/stablecoin-operations/${rtp.body.id}`)).body.status).toBe('COMPLETED');
    expect((await api.get(`/stablecoin-operations/${unfunded.body.id}`)).body).toMatchObject({ status: 'EXPIRED', failureReason: 'FUNDING_NOT_RECEIVED' });
    expect(stablecoinLedger(s.sandbox.context, coin.id)).toEqual({ reserveCents: 80_00, circulatingUnits: 80_000_000 });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);

    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.get(`/stablecoins/${coin.id}/operations?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      all.push(...page.body.data.map((o: { id: string }) => o.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(all).toEqual([unfunded.body.id, rtp.body.id, burn.body.id, provider.body.id, ach.body.id]);
    expect((await api.get(`/stablecoins/${coin.id}/operations?operationType=MINT`)).body.data).toHaveLength(2);
    expect((await api.get(`/stablecoins/${coin.id}/operations?cursor=bogus`)).status).toBe(404);
  });

  it('answers bad amounts, bad accounts and the provider outage with 4xx/503 and writes nothing', async () => {
    const { api, coin, wallet, bank, platformId } = await enabledSetup();
    const mint = (amount: string, extra: Record<string, unknown> = {}) =>
      api.post(`/stablecoins/${coin.id}/mints`, { amount, fundingSource: { type: 'WIRE' }, destination: { accountId: wallet }, ...extra }, key());
    expect((await mint('0')).body.code).toBe('AMOUNT_OUT_OF_RANGE');
    expect((await mint('999999999999999999')).body.code).toBe('AMOUNT_OUT_OF_RANGE');
    expect((await mint('1234567')).body.code).toBe('INVALID_AMOUNT');
    expect((await mint('-5')).body.code).toBe('INVALID_INPUT');
    expect((await mint('1000000', { destination: { accountId: bank } })).status).toBe(400);
    expect((await mint('1000000', { fundingSource: { type: 'ACH_DEBIT', externalAccountId: wallet } })).status).toBe(400);
    expect((await mint('1000000', { fundingSource: { type: 'SERVICE_INTERNAL_ACCOUNT', accountId: 'InternalAccount:nope' } })).status).toBe(400);
    const outage = await mint('5030000');
    expect(outage.status).toBe(503);
    expect(outage.body.code).toBe('SERVICE_UNAVAILABLE');
    const noKey = await api.post(`/stablecoins/${coin.id}/mints`, { amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: wallet } });
    expect(noKey.status).toBe(400);
    expect((await api.get(`/stablecoins/${coin.id}/operations`)).body.data).toHaveLength(0);
    expect((await api.get('/stablecoin-operations/StablecoinOperation:nope')).body.code).toBe('REFERENCE_NOT_FOUND');
    expect((await api.get('/stablecoins/Stablecoin:nope')).status).toBe(404);
    expect((await api.get('/stablecoins/Stablecoin:nope/operations')).status).toBe(404);

    // A revoked link stops mints; disabling the stablecoin too.
    await api.post(`/_sandbox/stablecoin-provider-accounts/${coin.stablecoinProviderAccountId}/status`, { status: 'REVOKED' });
    expect((await mint('1000000')).body.code).toBe('STABLECOIN_PROVIDER_ACCOUNT_REVOKED');
    await api.post(`/_sandbox/stablecoin-provider-accounts/${coin.stablecoinProviderAccountId}/status`, { status: 'ACTIVE' });
    await api.post(`/_sandbox/stablecoins/${coin.id}/service-operations-status`, { serviceOperationsStatus: 'DISABLED' });
    expect((await mint('1000000')).status).toBe(409);
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });
});

describe('stablecoin mint from a Service internal account', () => {
  it('holds the fiat at once and settles it into the reserve through the ledger', async () => {
    const { api, coin, wallet, platformId } = await enabledSetup();
    const customer = await api.post('/customers', individual(['USD']));
    const accounts = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}`);
    const usd = accounts.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD');
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 100_00 });
    const tooMuch = await api.post(`/stablecoins/${coin.id}/mints`, { amount: '200000000', fundingSource: { type: 'SERVICE_INTERNAL_ACCOUNT', accountId: usd.id }, destination: { accountId: wallet } }, key());
    expect(tooMuch.status).toBe(400);
    const mint = await api.post(`/stablecoins/${coin.id}/mints`, { amount: '40000000', fundingSource: { type: 'SERVICE_INTERNAL_ACCOUNT', accountId: usd.id }, destination: { accountId: wallet } }, key());
    expect(mint.status, JSON.stringify(mint.body)).toBe(201);
    expect(mint.body.source).toEqual({ type: 'SERVICE_INTERNAL_ACCOUNT', accountId: usd.id });
    const balance = async () => (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}`)).body.data.find((a: { id: string }) => a.id === usd.id);
    expect((await balance()).balance.amount).toBe(60_00);
    await api.advance(120);
    expect((await api.get(`/stablecoin-operations/${mint.body.id}`)).body.status).toBe('COMPLETED');
    expect((await balance()).totalBalance.amount).toBe(60_00);
    expect(stablecoinLedger(s.sandbox.context, coin.id)).toEqual({ reserveCents: 40_00, circulatingUnits: 40_000_000 });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });
});
