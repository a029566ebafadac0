import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bech32m } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { individual, unique, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();

const SOLANA = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const EVM = '0x742d35cc6634c0532925a3b844bc454e4438f44e';
// A Spark address: bech32m 'spark' over protobuf field 1 holding a compressed identity key.
const SPARK = bech32m.encode('spark', bech32m.toWords(new Uint8Array([0x0a, 0x21, ...secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true)])), 1023);

async function accounts(api: Api) {
  const customer = await api.post('/customers', individual(['USD', 'USDC', 'BTC', 'USDB']));
  expect(customer.status).toBe(201);
  const list = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}&limit=100`);
  const of = (code: string) => list.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === code).id as string;
  return { usd: of('USD'), usdc: of('USDC'), btc: of('BTC'), usdb: of('USDB') };
}

const estimate = (api: Api, body: Record<string, unknown>) => api.post('/crypto/estimate-withdrawal-fee', body);

describe('POST /crypto/estimate-withdrawal-fee', () => {
  it('prices each network: the fee in its gas asset, converted to the withdrawal currency and rounded up', async () => {
    const api = await s.api.newPlatform();
    const { usdc, btc, usdb } = await accounts(api);
    const amount = 50_000_000; // 50 USDC
    const cases: [string, string, string, number, number][] = [
      // network, destination, fee asset, network fee (gas asset units), total fee in micro-USDC
      ['SOLANA', SOLANA, 'SOL', 10_000, 1_800], // 0.00001 SOL x $180
      ['ETHEREUM', EVM, 'ETH', 780_000_000_000_000, 2_652_000], // 0.00078 ETH x $3,400
      ['BASE', EVM, 'ETH', 1_700_000_000_000, 5_780],
      ['ARBITRUM', EVM, 'ETH', 5_000_000_000_000, 17_000],
      ['POLYGON', EVM, 'POL', 2_600_000_000_000_000, 1_170], // 0.0026 POL x $0.45
    ];
    for (const [network, destinationAddress, asset, networkFee, totalFee] of cases) {
      const res = await estimate(api, { internalAccountId: usdc, currency: 'USDC', cryptoNetwork: network, amount, destinationAddress });
      expect(res.status, `${network} ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body).toEqual({ networkFee, networkFeeAsset: asset, applicationFee: 0, totalFee, netAmount: amount - totalFee });
    }
    // Bitcoin fees are already in satoshis.
    const onChain = await estimate(api, { internalAccountId: btc, currency: 'BTC', cryptoNetwork: 'bitcoin', amount: 100_000, destinationAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' });
    expect(onChain.body).toEqual({ networkFee: 1_128, networkFeeAsset: 'BTC', applicationFee: 0, totalFee: 1_128, netAmount: 98_872 });
    // Lightning: 1 sat base plus 500 ppm.
    const lightning = await estimate(api, { internalAccountId: btc, currency: 'BTC', cryptoNetwork: 'LIGHTNING', amount: 200_000, destinationAddress: 'alice@wallet.example' });
    expect(lightning.body).toMatchObject({ networkFee: 101, totalFee: 101, netAmount: 199_899 });
    // Spark carries BTC and USDB with no network fee.
    for (const [account, currency] of [[btc, 'BTC'], [usdb, 'USDB']] as const) {
      const spark = await estimate(api, { internalAccountId: account, currency, cryptoNetwork: 'SPARK', amount: 250_000, destinationAddress: SPARK });
      expect(spark.body, JSON.stringify(spark.body)).toEqual({ networkFee: 0, networkFeeAsset: 'BTC', applicationFee: 0, totalFee: 0, netAmount: 250_000 });
    }
    // a Solana address on SPARK: accepted (the contract allows any string), with a warning
    const wrongNetwork = await estimate(api, { internalAccountId: usdb, currency: 'USDB', cryptoNetwork: 'SPARK', amount: 250_000, destinationAddress: SOLANA });
    expect(wrongNetwork.status).toBe(200);
    expect(wrongNetwork.headers.get('service-sandbox-warning')).toMatch(/^destinationAddress: /);
    for (const address of ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297']) {
      expect((await estimate(api, { internalAccountId: btc, currency: 'BTC', cryptoNetwork: 'BITCOIN', amount: 100_000, destinationAddress: address })).status, address).toBe(200);
    }
  });

  it('refuses unknown accounts and networks, mismatched currencies, bad destinations and amounts', async () => {
    const api = await s.api.newPlatform();
    const { usd, usdc, btc } = await accounts(api);
    const base = { internalAccountId: usdc, currency: 'USDC', cryptoNetwork: 'SOLANA', amount: 5_000_000, destinationAddress: SOLANA };
    const cases: [Record<string, unknown>, number, string, string?][] = [
      [{ ...base, internalAccountId: 'InternalAccount:nope' }, 404, 'REFERENCE_NOT_FOUND'],
      [{ ...base, cryptoNetwork: 'DOGECOIN' }, 400, 'INVALID_INPUT', 'cryptoNetwork'],
      [{ ...base, currency: 'BTC' }, 400, 'INVALID_CURRENCY'],
      [{ ...base, internalAccountId: usd, currency: 'USD' }, 400, 'INVALID_CURRENCY'],
      [{ ...base, internalAccountId: btc, currency: 'BTC' }, 400, 'INVALID_CURRENCY'],
      [{ ...base, amount: 0 }, 400, 'INVALID_INPUT', 'amount'],
      [{ ...base, amount: 999_999 }, 400, 'AMOUNT_OUT_OF_RANGE'],
      [{ ...base, cryptoNetwork: 'ETHEREUM', destinationAddress: EVM, amount: 2_000_000 }, 400, 'INVALID_AMOUNT'],
      [{ ...base, destinationAddress: undefined }, 400, 'INVALID_INPUT', 'destinationAddress'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await estimate(api, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code).toBe(code);
      if (field) expect(res.body.details.errors[0].field).toBe(field);
    }
    const other = await s.api.newPlatform();
    expect((await estimate(other, base)).status).toBe(404);
  });

  it('accepts a destination the contract allows but the network would refuse, with a Service-Sandbox-Warning', async () => {
    const api = await s.api.newPlatform();
    const { usdc, btc } = await accounts(api);
    const base = { internalAccountId: usdc, currency: 'USDC', cryptoNetwork: 'SOLANA', amount: 5_000_000, destinationAddress: SOLANA };
    expect((await estimate(api, base)).headers.get('service-sandbox-warning')).toBeNull();
    for (const body of [
      { ...base, destinationAddress: EVM },
      { ...base, cryptoNetwork: 'ETHEREUM', destinationAddress: '0x742d35Cc6634C0532925a3b844Bc454e4438f44F' },
      { ...base, internalAccountId: btc, currency: 'BTC', cryptoNetwork: 'BITCOIN', amount: 100_000, destinationAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdx' },
    ]) {
      const res = await estimate(api, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get('service-sandbox-warning')).toMatch(/^destinationAddress: /);
    }
  });
});
