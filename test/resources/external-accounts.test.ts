import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58, base64, bech32m, createBase58check, hex } from '@scure/base';
import { composeIBAN } from 'ibantools';
import { describe, expect, it } from 'vitest';
import { accountTypeShapes } from '../../src/resources/external-accounts/account-types.generated.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { unique, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();

const fields = (body: { details?: { errors?: { field: string }[] } }) => (body.details?.errors ?? []).map((e) => e.field);

const person = (extra: Record<string, unknown> = {}) => ({
  beneficiaryType: 'INDIVIDUAL',
  fullName: 'John Michael Doe',
  countryOfResidence: 'US',
  phoneNumber: '+14155551234',
  address: { line1: '1 Main Street', postalCode: '94105', country: 'US' },
  ...extra,
});
const company = (extra: Record<string, unknown> = {}) => ({ beneficiaryType: 'BUSINESS', legalName: 'Acme Trading Ltd', ...extra });

/** An IBAN with valid check digits for a BBAN. */
const iban = (country: string, bban: string) => composeIBAN({ countryCode: country, bban })!;

const encoder = new TextEncoder();
const base58check = createBase58check(sha256);

/** A fresh secp256k1 key and the wallet addresses it controls (never one whose EVM address ends in a 1xx rule suffix). */
function evmKey(): { secret: Uint8Array; evm: string; tron: string; spark: string } {
  const secret = secp256k1.utils.randomSecretKey();
  if (/10[2-7]$/.test(hex.encode(keccak_256(secp256k1.getPublicKey(secret, false).slice(1)).slice(12)))) return evmKey();
  const publicKey = secp256k1.getPublicKey(secret, false);
  const body = keccak_256(publicKey.slice(1)).slice(12);
  return {
    secret,
    evm: `0x${hex.encode(body)}`,
    tron: base58check.encode(new Uint8Array([0x41, ...body])),
    spark: bech32m.encode('spark', bech32m.toWords(new Uint8Array([0x0a, 0x21, ...secp256k1.getPublicKey(secret, true)])), 1023),
  };
}

function rsvSign(prefix: string, message: string, secret: Uint8Array): string {
  const bytes = encoder.encode(message);
  const digest = keccak_256(new Uint8Array([...encoder.encode(`${prefix}${bytes.length}`), ...bytes]));
  const recovered = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
  return `0x${hex.encode(recovered.slice(1))}${(27 + recovered[0]!).toString(16)}`;
}

function bip137Sign(message: string, secret: Uint8Array): string {
  const magic = encoder.encode('Bitcoin Signed Message:\n');
  const body = encoder.encode(message);
  const digest = sha256(sha256(new Uint8Array([magic.length, ...magic, body.length, ...body])));
  const recovered = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
  return base64.encode(new Uint8Array([31 + recovered[0]!, ...recovered.slice(1)]));
}

const phoneOk = { beneficiary: person() };

/**
 * One valid and at least one invalid payload per accountType. `valid` is the request; `outcome`
 * says what a well-formed payload gets: 201, or the corridor error for types whose country the
 * rails table does not serve. Each invalid payload names the field its error must name; one
 * marked `warns` is accepted with a Service-Sandbox-Warning naming that field instead (wallet
 * addresses the contract's schema allows but whose checksum or encoding fails).
 */
interface Case {
  accountType: string;
  currency: string;
  info: Record<string, unknown>;
  unavailable?: string;
  invalid: { info: Record<string, unknown>; currency?: string; field: string; warns?: true }[];
}

const key = evmKey();
const solanaSecret = ed25519.utils.randomSecretKey();
const solanaAddress = base58.encode(ed25519.getPublicKey(solanaSecret));

const cases: Case[] = [
  { accountType: 'AED_ACCOUNT', currency: 'AED', info: { iban: 'AE070331234567890123456', ...phoneOk }, invalid: [{ info: { iban: 'AE070331234567890123457', ...phoneOk }, field: 'accountInfo.iban' }, { info: { iban: 'AE070331234567890123456', beneficiary: person({ address: undefined }) }, field: 'accountInfo.beneficiary.address' }] },
  { accountType: 'BDT_ACCOUNT', currency: 'BDT', info: { bankName: 'bKash', phoneNumber: '+8801712345678', ...phoneOk }, invalid: [{ info: { bankName: 'Unknown Wallet', phoneNumber: '+8801712345678', ...phoneOk }, field: 'accountInfo.bankName' }, { info: { bankName: 'bKash', phoneNumber: '+4412345678', ...phoneOk }, field: 'accountInfo.phoneNumber' }] },
  { accountType: 'BRL_ACCOUNT', currency: 'BRL', info: { pixKey: 'testuser.201@pix.com.br', pixKeyType: 'EMAIL', taxId: '12345678901', ...phoneOk }, invalid: [{ info: { pixKey: '1234', pixKeyType: 'CPF', taxId: '12345678901', ...phoneOk }, field: 'accountInfo.pixKey' }, { info: { pixKey: 'a@b.co', pixKeyType: 'IBAN', taxId: '12345678901', ...phoneOk }, field: 'accountInfo.pixKeyType' }] },
  { accountType: 'BWP_ACCOUNT', currency: 'BWP', info: { phoneNumber: '+26771234567', provider: 'Orange Money', ...phoneOk }, unavailable: 'accountInfo.accountType', invalid: [{ info: { phoneNumber: '26771234567', provider: 'Orange Money', ...phoneOk }, field: 'accountInfo.phoneNumber' }] },
  { accountType: 'CAD_ACCOUNT', currency: 'CAD', info: { bankCode: '001', branchCode: '00011', accountNumber: '1234567', ...phoneOk }, unavailable: 'accountInfo.accountType', invalid: [{ info: { bankCode: '1', branchCode: '00011', accountNumber: '1234567', ...phoneOk }, field: 'accountInfo.bankCode' }] },
  { accountType: 'CNY_ACCOUNT', currency: 'CNY', info: { bankName: 'Alipay', phoneNumber: '+8613812345678', ...phoneOk }, invalid: [{ info: { bankName: 'Bank of China', accountNumber: '6222021234567890', ...phoneOk }, field: 'accountInfo.beneficiary.beneficiaryType' }, { info: { bankName: 'Alipay', ...phoneOk }, field: 'accountInfo.phoneNumber' }] },
  { accountType: 'COP_ACCOUNT', currency: 'COP', info: { bankName: 'Bancolombia', accountNumber: '12345678901', bankAccountType: 'SAVINGS', ...phoneOk }, invalid: [{ info: { bankName: 'Bancolombia', accountNumber: '1', bankAccountType: 'CURRENT', ...phoneOk }, field: 'accountInfo.bankAccountType' }] },
  { accountType: 'DKK_ACCOUNT', currency: 'DKK', info: { iban: 'DK5000400440116243', ...phoneOk }, invalid: [{ info: { iban: 'DK5000400440116244', ...phoneOk }, field: 'accountInfo.iban' }, { info: { iban: 'DK5000400440116243', ...phoneOk }, currency: 'EUR', field: 'currency' }] },
  { accountType: 'EGP_ACCOUNT', currency: 'EGP', info: { bankName: 'National Bank of Egypt', iban: 'EG380019000500000000263180002', ...phoneOk }, invalid: [{ info: { bankName: 'National Bank of Egypt', iban: 'EG380019000500000000263180003', ...phoneOk }, field: 'accountInfo.iban' }] },
  { accountType: 'EUR_ACCOUNT', currency: 'EUR', info: { iban: 'DE89370400440532013000', swiftCode: 'COBADEFFXXX', ...phoneOk }, invalid: [{ info: { iban: 'DE8937040044053201300', ...phoneOk }, field: 'accountInfo.iban' }, { info: { iban: 'DE89370400440532013000', swiftCode: 'COBAZZFF', ...phoneOk }, field: 'accountInfo.swiftCode' }, { info: { iban: 'DE89370400440532013000', beneficiary: person({ countryOfResidence: undefined }) }, field: 'accountInfo.beneficiary.countryOfResidence' }] },
  { accountType: 'GBP_ACCOUNT', currency: 'GBP', info: { sortCode: '401276', accountNumber: '12345678', ...phoneOk }, invalid: [{ info: { sortCode: '40-12-76', accountNumber: '12345678', ...phoneOk }, field: 'accountInfo.sortCode' }] },
  { accountType: 'GHS_ACCOUNT', currency: 'GHS', info: { bankName: 'MTN Mobile Money', phoneNumber: '+233241234567', ...phoneOk }, invalid: [{ info: { bankName: 'MTN Mobile Money', phoneNumber: '+234241234567', ...phoneOk }, field: 'accountInfo.phoneNumber' }] },
  { accountType: 'GTQ_ACCOUNT', currency: 'GTQ', info: { accountNumber: '1234567890', bankAccountType: 'CHECKING', bankName: 'Banco Industrial', ...phoneOk }, unavailable: 'accountInfo.accountType', invalid: [{ info: { accountNumber: '1234567890', bankName: 'Banco Industrial', ...phoneOk }, field: 'accountInfo.bankAccountType' }] },
  { accountType: 'HKD_ACCOUNT', currency: 'HKD', info: { bankName: 'HSBC', accountNumber: '123456789', swiftCode: 'HSBCHKHHXXX', ...phoneOk }, unavailable: 'accountInfo.accountType', invalid: [{ info: { bankName: 'HSBC', accountNumber: '123456789', ...phoneOk }, field: 'accountInfo.swiftCode' }] },
  { accountType: 'HTG_ACCOUNT', currency: 'HTG', info: { phoneNumber: '+50934123456', ...phoneOk }, invalid: [{ info: { phoneNumber: '+15093412345', ...phoneOk }, field: 'accountInfo.phoneNumber' }] },
  { accountType: 'IDR_ACCOUNT', currency: 'IDR', info: { bankName: 'BCA', accountNumber: '1234567890', swiftCode: 'CENAIDJA', phoneNumber: '+6281234567890', ...phoneOk }, invalid: [{ info: { bankName: 'BCA', accountNumber: '1234567890', swiftCode: 'CENAIDJA', phoneNumber: '+6681234567890', ...phoneOk }, field: 'accountInfo.phoneNumber' }] },
  { accountType: 'INR_ACCOUNT', currency: 'INR', info: { vpa: 'john.doe@okaxis', ...phoneOk }, invalid: [{ info: { accountNumber: '123456789012', ...phoneOk }, field: 'accountInfo.ifsc' }, { info: { vpa: 'not-a-vpa', ...phoneOk }, field: 'accountInfo.vpa' }] },
  { accountType: 'JMD_ACCOUNT', currency: 'JMD', info: { accountNumber: '123456', branchCode: '12345', bankAccountType: 'SAVINGS', bankName: 'NCB', beneficiary: person() }, unavailable: 'accountInfo.accountType', invalid: [{ info: { accountNumber: '123456', branchCode: '12345', bankAccountType: 'SAVINGS', bankName: 'NCB', beneficiary: person({ phoneNumber: undefined }) }, field: 'accountInfo.beneficiary.phoneNumber' }] },
  { accountType: 'KES_ACCOUNT', currency: 'KES', info: { phoneNumber: '+254712345678', provider: 'M-Pesa', ...phoneOk }, invalid: [{ info: { phoneNumber: '+254712345678', provider: 'Paybill', ...phoneOk }, field: 'accountInfo.provider' }, { info: { phoneNumber: '+255712345678', provider: 'M-Pesa', ...phoneOk }, field: 'accountInfo.phoneNumber' }] },
  { accountType: 'MWK_ACCOUNT', currency: 'MWK', info: { phoneNumber: '+265991234567', provider: 'TNM Mpamba', ...phoneOk }, invalid: [{ info: { phoneNumber: '+265991234567', ...phoneOk }, field: 'accountInfo.provider' }] },
  { accountType: 'MXN_ACCOUNT', currency: 'MXN', info: { clabeNumber: '002010077777777771', ...phoneOk }, invalid: [{ info: { clabeNumber: '00201007777777777', ...phoneOk }, field: 'accountInfo.clabeNumber' }] },
  { accountType: 'MYR_ACCOUNT', currency: 'MYR', info: { bankName: 'Maybank', accountNumber: '514012345678', swiftCode: 'MBBEMYKL', ...phoneOk }, invalid: [{ info: { bankName: 'Maybank', accountNumber: '514012345678', swiftCode: 'mbbemykl', ...phoneOk }, field: 'accountInfo.swiftCode' }] },
  { accountType: 'NGN_ACCOUNT', currency: 'NGN', info: { accountNumber: '0123456789', bankName: 'GTBank', ...phoneOk }, invalid: [{ info: { accountNumber: '123456789', bankName: 'GTBank', ...phoneOk }, field: 'accountInfo.accountNumber' }] },
  { accountType: 'PHP_ACCOUNT', currency: 'PHP', info: { bankName: 'BDO Unibank', accountNumber: '001234567890', ...phoneOk }, invalid: [{ info: { bankName: 'BDO Unibank', accountNumber: '0012345', ...phoneOk }, field: 'accountInfo.accountNumber' }, { info: { bankName: 'BDO Unibank', accountNumber: '001234567890', beneficiary: { beneficiaryType: 'PERSON', fullName: 'X Y' } }, field: 'accountInfo.beneficiary.beneficiaryType' }] },
  { accountType: 'PKR_ACCOUNT', currency: 'PKR', info: { bankName: 'HBL', iban: 'PK36SCBL0000001123456702', ...phoneOk }, invalid: [{ info: { bankName: 'HBL', iban: 'PK36SCBL0000001123456703', ...phoneOk }, field: 'accountInfo.iban' }] },
  { accountType: 'RWF_ACCOUNT', currency: 'RWF', info: { phoneNumber: '+250781234567', provider: 'MTN MoMo Rwanda', ...phoneOk }, invalid: [{ info: { phoneNumber: '+250781234567', provider: 'M-Pesa', ...phoneOk }, field: 'accountInfo.provider' }] },
  { accountType: 'SGD_ACCOUNT', currency: 'SGD', info: { bankName: 'DBS', accountNumber: '0123456789', swiftCode: 'DBSSSGSG', ...phoneOk }, invalid: [{ info: { bankName: 'DBS', swiftCode: 'DBSSSGSG', ...phoneOk }, field: 'accountInfo.accountNumber' }] },
  { accountType: 'SLV_ACCOUNT', currency: 'USD', info: { bankName: 'Banco Agricola', accountNumber: '1234567', bankAccountType: 'SAVINGS', ...phoneOk }, unavailable: 'accountInfo.accountType', invalid: [{ info: { bankName: 'Banco Agricola', accountNumber: '1234567', bankAccountType: 'LOAN', ...phoneOk }, field: 'accountInfo.bankAccountType' }] },
  { accountType: 'THB_ACCOUNT', currency: 'THB', info: { bankName: 'Bangkok Bank', accountNumber: '1234567890', swiftCode: 'BKKBTHBK', ...phoneOk }, invalid: [{ info: { bankName: 'Bangkok Bank', accountNumber: '1234567890', swiftCode: 'BKKBTHBK', beneficiary: person({ fullName: undefined }) }, field: 'accountInfo.beneficiary.fullName' }] },
  { accountType: 'TZS_ACCOUNT', currency: 'TZS', info: { phoneNumber: '+255712345678', provider: 'M-Pesa Tanzania', ...phoneOk }, invalid: [{ info: { phoneNumber: '+254712345678', provider: 'M-Pesa Tanzania', ...phoneOk }, field: 'accountInfo.phoneNumber' }] },
  { accountType: 'UGX_ACCOUNT', currency: 'UGX', info: { phoneNumber: '+256771234567', provider: 'MTN MoMo Uganda', ...phoneOk }, invalid: [{ info: { phoneNumber: '+256771234567', provider: 'MTN MoMo Uganda', ...phoneOk }, currency: 'KES', field: 'currency' }] },
  { accountType: 'USD_ACCOUNT', currency: 'USD', info: { accountNumber: '12345678901', routingNumber: '021000021', bankAccountType: 'CHECKING', ...phoneOk }, invalid: [{ info: { accountNumber: '12345678901', routingNumber: '021000022', ...phoneOk }, field: 'accountInfo.routingNumber' }, { info: { routingNumber: '021000021', ...phoneOk }, field: 'accountInfo.accountNumber' }] },
  { accountType: 'VND_ACCOUNT', currency: 'VND', info: { bankName: 'Vietcombank', accountNumber: '0071000123456', swiftCode: 'BFTVVNVX', ...phoneOk }, invalid: [{ info: { bankName: 'Vietcombank', accountNumber: '0071000123456', swiftCode: 'BFTVVNVX', beneficiary: person({ birthDate: '1990-02-31' }) }, field: 'accountInfo.beneficiary.birthDate' }] },
  { accountType: 'XAF_ACCOUNT', currency: 'XAF', info: { phoneNumber: '+237671234567', provider: 'MTN MoMo Cameroon', region: 'CM', ...phoneOk }, invalid: [{ info: { phoneNumber: '+237671234567', provider: 'MTN MoMo Cameroon', region: 'GA', ...phoneOk }, field: 'accountInfo.region' }, { info: { phoneNumber: '+242061234567', provider: 'MTN Congo', region: 'CG', ...phoneOk }, field: 'accountInfo.region' }] },
  { accountType: 'XOF_ACCOUNT', currency: 'XOF', info: { phoneNumber: '+221771234567', provider: 'Wave Senegal', region: 'SN', ...phoneOk }, invalid: [{ info: { phoneNumber: '+225071234567', provider: 'Wave Senegal', region: 'SN', ...phoneOk }, field: 'accountInfo.phoneNumber' }] },
  { accountType: 'ZAR_ACCOUNT', currency: 'ZAR', info: { accountNumber: '1234567890', bankName: 'Capitec', ...phoneOk }, invalid: [{ info: { accountNumber: '1234567890', bankName: 'Capitec', beneficiary: person({ nationality: 'ZZ' }) }, field: 'accountInfo.beneficiary.nationality' }] },
  { accountType: 'ZMW_ACCOUNT', currency: 'ZMW', info: { phoneNumber: '+260971234567', provider: 'Airtel Money Zambia', ...phoneOk }, invalid: [{ info: { phoneNumber: '+260971234567', provider: 'Airtel Money Zambia', beneficiary: company({ legalName: undefined }) }, field: 'accountInfo.beneficiary.legalName' }] },
  { accountType: 'SWIFT_ACCOUNT', currency: 'USD', info: { country: 'JP', swiftCode: 'BOTKJPJT', bankName: 'MUFG Bank', accountNumber: '1234567', ...phoneOk }, invalid: [{ info: { country: 'JP', swiftCode: 'BOTKJPJT', bankName: 'MUFG Bank', ...phoneOk }, field: 'accountInfo.accountNumber' }, { info: { country: 'JP', swiftCode: 'BOTKJPJT', bankName: 'MUFG Bank', accountNumber: '1234567', ...phoneOk }, currency: 'JPY', field: 'currency' }] },
  { accountType: 'BASE_WALLET', currency: 'USDC', info: { address: key.evm }, invalid: [{ info: { address: key.evm.slice(0, 41) }, field: 'accountInfo.address', warns: true }] },
  { accountType: 'ETHEREUM_WALLET', currency: 'USDC', info: { address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', vaspName: 'Kraken' }, invalid: [{ info: { address: '0xAbCDEF1234567890aBCdEf1234567890ABcDef12' }, field: 'accountInfo.address', warns: true }] },
  { accountType: 'LIGHTNING', currency: 'BTC', info: { lightningAddress: 'john.doe@lightningwallet.com' }, invalid: [{ info: { invoice: 'lnbc15u1p3xnhl2pp5jptserfk3zk4qy42tlucycrfwxhydvlemu9pqr93tuzlv9cc7g3sdqsvfhkcap3xyhx7un8cqzpgxqzjcsp5f8c52y2stc300gl6s4xswtjpc37hrnnr3c9wvtgjfuvqmpm35evq9qyyssqy4lgd8tj637qcjp05rdpxxykjenthxftej7a2zzmwrmrl70fyj9hvj0rewhzj7jfyuwkwcg9g2jpwtk3wkjtwnkdks84hsnu8xps5vsq4gj5hq' }, field: 'accountInfo.invoice' }, { info: { lightningAddress: 'a@b.com', bolt12: 'lno1qcp4256ypqpq86q2pucnq42ngssx2an9wfujqerp0y2pqun4wd68jtn00fkxzcnn9ehhyec6qgqsz' }, field: 'accountInfo' }] },
  { accountType: 'POLYGON_WALLET', currency: 'USDC', info: { address: key.evm.toUpperCase().replace('0X', '0x') }, invalid: [{ info: { address: `0x${'g'.repeat(40)}` }, field: 'accountInfo.address', warns: true }] },
  { accountType: 'PLASMA_WALLET', currency: 'USDT', info: { address: key.evm }, invalid: [{ info: { address: key.evm }, currency: 'USDC', field: 'currency' }] },
  { accountType: 'SOLANA_WALLET', currency: 'USDC', info: { address: solanaAddress, beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'John Doe', countryOfResidence: 'US' } }, invalid: [{ info: { address: `${solanaAddress}0` }, field: 'accountInfo.address', warns: true }, { info: { address: solanaAddress, beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'John Doe' } }, field: 'accountInfo.beneficiary.countryOfResidence' }] },
  { accountType: 'SPARK_WALLET', currency: 'BTC', info: { address: key.spark }, invalid: [{ info: { address: 'spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu' }, field: 'accountInfo.address', warns: true }] },
  { accountType: 'TRON_WALLET', currency: 'USDT', info: { address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL' }, invalid: [{ info: { address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeM' }, field: 'accountInfo.address', warns: true }] },
];

describe('external accounts: every accountType', () => {
  it('the table covers every accountType the contract lets a platform create', () => {
    expect(cases.map((c) => c.accountType).sort()).toEqual(Object.keys(accountTypeShapes).sort());
  });

  for (const c of cases) {
    it(`${c.accountType}: a valid payload ${c.unavailable ? 'meets the corridor rule' : 'is created'}; invalid ones name their field`, async () => {
      const api = await s.api.newPlatform();
      const res = await api.post('/platform/external-accounts', { currency: c.currency, accountInfo: { accountType: c.accountType, ...c.info } });
      if (c.unavailable) {
        expect(res.status).toBe(400);
        expect(fields(res.body)).toEqual([c.unavailable]);
      } else {
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        expect(res.body.id).toMatch(/^ExternalAccount:/);
        expect(res.body.accountInfo.accountType).toBe(c.accountType);
        expect(res.body.currency).toBe(c.currency);
        expect(res.body.customerId).toBeUndefined();
        const again = await api.get(`/platform/external-accounts/${res.body.id}`);
        expect(again.body).toEqual(res.body);
      }
      for (const bad of c.invalid) {
        const r = await api.post('/platform/external-accounts', { currency: bad.currency ?? c.currency, accountInfo: { accountType: c.accountType, ...bad.info } });
        if (bad.warns) {
          expect(r.status, JSON.stringify(bad)).toBe(201);
          expect(r.headers.get('service-sandbox-warning')).toContain(bad.field);
          continue;
        }
        expect(r.status, JSON.stringify(bad)).toBe(400);
        expect(r.body.code).toBe('INVALID_INPUT');
        expect(fields(r.body), JSON.stringify(r.body)).toContain(bad.field);
      }
      const list = await api.get('/platform/external-accounts');
      expect(list.body.totalCount).toBe((c.unavailable ? 0 : 1) + c.invalid.filter((bad) => bad.warns).length);
    });
  }
});

describe('external accounts: identifier formats', () => {
  const brl = (pixKey: string, pixKeyType: string) => ({ currency: 'BRL', accountInfo: { accountType: 'BRL_ACCOUNT', pixKey, pixKeyType, taxId: '12345678000199', beneficiary: company() } });
  const formats: [string, Record<string, unknown>, string | undefined][] = [
    ['PIX PHONE key', brl('+5511987654321', 'PHONE'), undefined],
    ['PIX PHONE key without area code', brl('+55987654', 'PHONE'), 'accountInfo.pixKey'],
    ['PIX RANDOM key', brl('123e4567-e89b-42d3-a456-426614174000', 'RANDOM'), undefined],
    ['PIX RANDOM key that is no UUID', brl('random-key', 'RANDOM'), 'accountInfo.pixKey'],
    ['PIX CNPJ key', brl('12345678000199', 'CNPJ'), undefined],
    ['PIX CPF key with a CNPJ', brl('12345678000199', 'CPF'), 'accountInfo.pixKey'],
    ['IBAN with letters where the country has digits', { currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'NL91ABNA041716430A', beneficiary: person() } }, 'accountInfo.iban'],
    ['IBAN of a country without IBANs', { currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'US12345678901234567', beneficiary: person() } }, 'accountInfo.iban'],
    ['Solana key of 31 bytes', { currency: 'USDC', accountInfo: { accountType: 'SOLANA_WALLET', address: base58.encode(new Uint8Array(31).fill(7)) } }, 'accountInfo.address'],
    ['intermediary routing number failing the ABA checksum', { currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '42', routingNumber: '021000021', intermediaryRoutingNumber: '123456789', beneficiary: person() } }, 'accountInfo.intermediaryRoutingNumber'],
    ['BOLT12 offer', { currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', bolt12: 'lno1qcp4256ypqpq86q2pucnq42ngssx2an9wfujqerp0y2pqun4wd68jtn00fkxzcnn9ehhyec6qgqsz' } }, undefined],
    ['BOLT11 invoice', { currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', invoice: 'lnbc15u1p3xnhl2pp5jptserfk3zk4qy42tlucycrfwxhydvlemu9pqr93tuzlv9cc7g3sdqsvfhkcap3xyhx7un8cqzpgxqzjcsp5f8c52y2stc300gl6s4xswtjpc37hrnnr3c9wvtgjfuvqmpm35evq9qyyssqy4lgd8tj637qcjp05rdpxxykjenthxftej7a2zzmwrmrl70fyj9hvj0rewhzj7jfyuwkwcg9g2jpwtk3wkjtwnkdks84hsnu8xps5vsq4gj5hs' } }, undefined],
    ['lightning address with capitals', { currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', lightningAddress: 'John@Wallet.com' } }, 'accountInfo.lightningAddress'],
    ['Tron address in another base58 version', { currency: 'USDT', accountInfo: { accountType: 'TRON_WALLET', address: base58check.encode(new Uint8Array([0x00, ...new Uint8Array(20).fill(1)])) } }, 'accountInfo.address'],
    ['beneficiary email', { currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '43', routingNumber: '021000021', beneficiary: person({ email: 'not-an-email' }) } }, 'accountInfo.beneficiary.email'],
    ['beneficiary address without postal code', { currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '44', routingNumber: '021000021', beneficiary: person({ address: { line1: '1 Main St', country: 'US' } }) } }, 'accountInfo.beneficiary.address.postalCode'],
  ];
  for (const [name, body, field] of formats) {
    it(`${name}: ${field ? `rejected on ${field}` : 'accepted'}`, async () => {
      const res = await s.api.post('/platform/external-accounts', body);
      if (field === 'accountInfo.address') {
        // a wallet address the contract's schema allows: accepted with a warning naming it
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        expect(res.headers.get('service-sandbox-warning')).toContain(field);
      } else if (field === undefined) {
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      } else {
        expect(res.status).toBe(400);
        expect(fields(res.body)).toEqual([field]);
      }
    });
  }
});

describe('external accounts: corridors', () => {
  const eur = (ibanValue: string) => ({ currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban: ibanValue, beneficiary: person() } });
  const swift = (country: string, currency = 'USD', extra: Record<string, unknown> = {}) => ({
    currency,
    accountInfo: { accountType: 'SWIFT_ACCOUNT', country, swiftCode: `ABCD${country}2A`, bankName: 'Some Bank', accountNumber: '12345678', beneficiary: person(), ...extra },
  });

  it('SEPA pays every SEPA country, including HR and SI, and nothing else', async () => {
    const api = await s.api.newPlatform();
    for (const [country, bban] of [['HR', '10010051863000160'], ['SI', '263300012039086'], ['CH', '0076201162385295 7'.replace(' ', '')], ['NO', '86011117947']] as const) {
      const res = await api.post('/platform/external-accounts', eur(iban(country, bban)));
      expect(res.status, `${country} ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body.accountInfo.paymentRails).toEqual(['SEPA', 'SEPA_INSTANT']);
    }
    const gb = await api.post('/platform/external-accounts', eur('GB29NWBK60161331926819'));
    expect(gb.status).toBe(400);
    expect(fields(gb.body)).toEqual(['accountInfo.iban']);
    expect(gb.body.details.errors[0].message).toMatch(/SWIFT_ACCOUNT/);
  });

  it('SWIFT is the USD/EUR fallback everywhere except HR and SI, CA/HK/KR and sanctioned destinations', async () => {
    const api = await s.api.newPlatform();
    for (const country of ['JP', 'DE', 'NG', 'BW']) {
      const res = await api.post('/platform/external-accounts', swift(country, country === 'DE' ? 'EUR' : 'USD'));
      expect(res.status, `${country} ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body.accountInfo.paymentRails).toEqual(['SWIFT']);
    }
    for (const country of ['HR', 'SI', 'CA', 'HK', 'KR', 'KP']) {
      const res = await api.post('/platform/external-accounts', swift(country));
      expect(res.status, country).toBe(400);
      expect(fields(res.body)).toEqual(['accountInfo.country']);
    }
    const gbp = await api.post('/platform/external-accounts', swift('JP', 'GBP'));
    expect(fields(gbp.body)).toEqual(['currency']);
    const mismatch = await api.post('/platform/external-accounts', swift('JP', 'USD', { swiftCode: 'DEUTDEFF' }));
    expect(fields(mismatch.body)).toEqual(['accountInfo.swiftCode']);
  });

  it('CA, HK and KR are announced but unavailable', async () => {
    const api = await s.api.newPlatform();
    const res = await api.post('/platform/external-accounts', {
      currency: 'CAD',
      accountInfo: { accountType: 'CAD_ACCOUNT', bankCode: '001', branchCode: '00011', accountNumber: '1234567', beneficiary: person() },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.errors[0].message).toMatch(/announced/);
  });

  it('China: consumer wallets pay individuals, bank transfer is business-to-business only', async () => {
    const api = await s.api.newPlatform();
    const wallet = await api.post('/platform/external-accounts', { currency: 'CNY', accountInfo: { accountType: 'CNY_ACCOUNT', bankName: 'WeChat Pay', phoneNumber: '+8613912345678', beneficiary: person() } });
    expect(wallet.status).toBe(201);
    expect(wallet.body.accountInfo.paymentRails).toEqual(['MOBILE_MONEY']);
    const walletToBusiness = await api.post('/platform/external-accounts', { currency: 'CNY', accountInfo: { accountType: 'CNY_ACCOUNT', bankName: 'Alipay', phoneNumber: '+8613912345670', beneficiary: company() } });
    expect(fields(walletToBusiness.body)).toEqual(['accountInfo.beneficiary.beneficiaryType']);
    const bank = await api.post('/platform/external-accounts', { currency: 'CNY', accountInfo: { accountType: 'CNY_ACCOUNT', bankName: 'ICBC', accountNumber: '6222021234567890', beneficiary: company() } });
    expect(bank.status).toBe(201);
    expect(bank.body.accountInfo.paymentRails).toEqual(['BANK_TRANSFER']);
  });

  it('corridors with bank and mobile money accept either; the rails follow the identifier', async () => {
    const api = await s.api.newPlatform();
    const mobile = await api.post('/platform/external-accounts', { currency: 'PKR', accountInfo: { accountType: 'PKR_ACCOUNT', bankName: 'JazzCash', phoneNumber: '+923001234567', beneficiary: person() } });
    expect(mobile.status).toBe(201);
    expect(mobile.body.accountInfo.paymentRails).toEqual(['MOBILE_MONEY']);
    const bankAccount = await api.post('/platform/external-accounts', { currency: 'PKR', accountInfo: { accountType: 'PKR_ACCOUNT', bankName: 'Meezan Bank', accountNumber: '0101234567', beneficiary: person() } });
    expect(bankAccount.body.accountInfo.paymentRails).toEqual(['BANK_TRANSFER']);
    const upi = await api.post('/platform/external-accounts', { currency: 'INR', accountInfo: { accountType: 'INR_ACCOUNT', accountNumber: '123456789012', ifsc: 'HDFC0001234', beneficiary: person() } });
    expect(upi.body.accountInfo.paymentRails).toEqual(['NEFT', 'RTGS']);
  });
});

describe('external accounts: beneficiary-name verification (1xx suffixes)', () => {
  const usd = (accountNumber: string, beneficiary: Record<string, unknown> = person()) => ({
    currency: 'USD',
    accountInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: '011000015', beneficiary },
  });
  const table: [string, string | undefined, string | undefined][] = [
    ['000101', 'MATCHED', 'John Michael Doe'],
    ['000102', 'NOT_MATCHED', undefined],
    ['000103', 'PARTIAL_MATCH', 'J. M. Doe'],
    ['000104', 'PENDING', undefined],
    ['000106', 'UNSUPPORTED', undefined],
    ['000107', 'CHECKED_BY_RECEIVING_FI', undefined],
  ];

  for (const [accountNumber, status, name] of table) {
    it(`an account number ending in ${accountNumber.slice(-3)} gives ${status}`, async () => {
      const api = await s.api.newPlatform();
      const res = await api.post('/platform/external-accounts', usd(accountNumber));
      expect(res.status).toBe(201);
      expect(res.body.beneficiaryVerificationStatus).toBe(status);
      expect(res.body.beneficiaryVerifiedData?.fullName).toBe(name);
      expect(res.body.status).toBe('ACTIVE');
    });
  }

  it('105 fails creation with 400 and writes nothing', async () => {
    const api = await s.api.newPlatform();
    const res = await api.post('/platform/external-accounts', usd('000105'));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_BANK_ACCOUNT');
    expect(fields(res.body)).toEqual(['accountInfo.accountNumber']);
    expect((await api.get('/platform/external-accounts')).body.totalCount).toBe(0);
  });

  it('the suffix is read from the identifier: IBAN, CLABE, phone, and the user part of a PIX email key', async () => {
    const api = await s.api.newPlatform();
    const ibanRes = await api.post('/platform/external-accounts', { currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban: iban('DE', '370400440532013102'), beneficiary: person() } });
    expect(ibanRes.body.beneficiaryVerificationStatus).toBe('NOT_MATCHED');
    const clabe = await api.post('/platform/external-accounts', { currency: 'MXN', accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: '002010077777777103', beneficiary: person() } });
    expect(clabe.body.beneficiaryVerificationStatus).toBe('PARTIAL_MATCH');
    const phone = await api.post('/platform/external-accounts', { currency: 'KES', accountInfo: { accountType: 'KES_ACCOUNT', phoneNumber: '+254712345106', provider: 'M-Pesa', beneficiary: person() } });
    expect(phone.body.beneficiaryVerificationStatus).toBe('UNSUPPORTED');
    const pix = await api.post('/platform/external-accounts', { currency: 'BRL', accountInfo: { accountType: 'BRL_ACCOUNT', pixKey: 'testuser.105@pix.com.br', pixKeyType: 'EMAIL', taxId: '12345678901', beneficiary: person() } });
    expect(pix.status).toBe(400);
    expect(pix.body.code).toBe('INVALID_BANK_ACCOUNT');
    expect(fields(pix.body)).toEqual(['accountInfo.pixKey']);
    const business = await api.post('/platform/external-accounts', usd('777101', company()));
    expect(business.body.beneficiaryVerifiedData).toEqual({ fullName: 'Acme Trading Ltd' });
  });
});

describe('external accounts: lifecycle', () => {
  const usd = (accountNumber: string, extra: Record<string, unknown> = {}) => ({
    currency: 'USD',
    ...extra,
    accountInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: '021000021', beneficiary: person() },
  });

  it('lists with filters and cursor pagination, deletes, and keeps platforms apart', async () => {
    const api = await s.api.newPlatform();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await api.post('/platform/external-accounts', usd(`90000${i}`, { platformAccountId: `acc-${i}` }))).body.id);
    const eurAccount = await api.post('/platform/external-accounts', { currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', beneficiary: person() } });
    const first = await api.get('/platform/external-accounts?limit=2&currency=USD');
    expect(first.body.data.map((a: { id: string }) => a.id)).toEqual(ids.slice(0, 2));
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 5 });
    const second = await api.get(`/platform/external-accounts?limit=2&currency=USD&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((a: { id: string }) => a.id)).toEqual(ids.slice(2, 4));
    expect(second.body.data[0].platformAccountId).toBe('acc-2');
    const eurOnly = await api.get('/platform/external-accounts?currency=EUR');
    expect(eurOnly.body.data.map((a: { id: string }) => a.id)).toEqual([eurAccount.body.id]);

    const other = await s.api.newPlatform();
    expect((await other.get(`/platform/external-accounts/${ids[0]}`)).status).toBe(404);
    expect((await other.get(`/customers/external-accounts/${ids[0]}`)).body.code).toBe('REFERENCE_NOT_FOUND');
    expect((await other.delete(`/platform/external-accounts/${ids[0]}`)).status).toBe(404);

    expect((await api.delete(`/platform/external-accounts/${ids[0]}`)).status).toBe(204);
    expect((await api.get(`/platform/external-accounts/${ids[0]}`)).status).toBe(404);
    expect((await api.delete(`/platform/external-accounts/${ids[0]}`)).status).toBe(404);
    expect((await api.get('/platform/external-accounts')).body.totalCount).toBe(5);
  });

  it('a sandbox reset removes the platform\'s accounts only', async () => {
    const api = await s.api.newPlatform();
    const other = await s.api.newPlatform();
    await api.post('/platform/external-accounts', usd('700001'));
    await other.post('/platform/external-accounts', usd('700001'));
    expect((await api.post('/_sandbox/reset')).status).toBe(200);
    expect((await api.get('/platform/external-accounts')).body.totalCount).toBe(0);
    expect((await other.get('/platform/external-accounts')).body.totalCount).toBe(1);
  });

  it('refuses a duplicate with 409, and accepts the same account again once deleted', async () => {
    const api = await s.api.newPlatform();
    const a = await api.post('/platform/external-accounts', usd('555000'));
    const b = await api.post('/platform/external-accounts', usd('555000'));
    expect(b.status).toBe(409);
    expect(b.body.code).toBe('CONFLICT');
    await api.delete(`/platform/external-accounts/${a.body.id}`);
    expect((await api.post('/platform/external-accounts', usd('555000'))).status).toBe(201);
    // One EVM address in two letter cases is one wallet.
    const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    expect((await api.post('/platform/external-accounts', { currency: 'USDC', accountInfo: { accountType: 'BASE_WALLET', address: checksummed } })).status).toBe(201);
    expect((await api.post('/platform/external-accounts', { currency: 'USDC', accountInfo: { accountType: 'BASE_WALLET', address: checksummed.toLowerCase() } })).status).toBe(409);
  });

  it('accepts LIGHTNING_ACCOUNT as the LIGHTNING type, and platformAccountId inside accountInfo as the contract example sends it', async () => {
    const api = await s.api.newPlatform();
    const ln = await api.post('/platform/external-accounts', { currency: 'BTC', accountInfo: { accountType: 'LIGHTNING_ACCOUNT', lightningAddress: 'satoshi@wallet.example.com' } });
    expect(ln.status).toBe(201);
    expect(ln.body.accountInfo).toEqual({ accountType: 'LIGHTNING', lightningAddress: 'satoshi@wallet.example.com' });
    const usdAccount = await api.post('/platform/external-accounts', { currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '12345678901', routingNumber: '021000021', platformAccountId: 'ext_acc_123456', beneficiary: person() } });
    expect(usdAccount.body.platformAccountId).toBe('ext_acc_123456');
    expect(usdAccount.body.accountInfo.platformAccountId).toBeUndefined();
    expect(usdAccount.body.accountInfo.paymentRails).toEqual(['ACH', 'WIRE', 'RTP', 'FEDNOW']);
  });

  it('rejects bad envelopes with field errors', async () => {
    const res = await s.api.post('/platform/external-accounts', { currency: 'usd', accountInfo: { accountType: 'IBAN_ACCOUNT' } });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['currency']);
    const type = await s.api.post('/platform/external-accounts', { currency: 'USD', accountInfo: { accountType: 'IBAN_ACCOUNT' } });
    expect(fields(type.body)).toEqual(['accountInfo.accountType']);
    const missing = await s.api.post('/platform/external-accounts', { currency: 'USD' });
    expect(fields(missing.body)).toEqual(['accountInfo']);
  });
});

describe('external accounts: customers', () => {
  const customer = async (api: Api) => {
    const res = await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: unique('ind'), fullName: 'Jane Smith', birthDate: '1990-01-15', nationality: 'US' });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const usd = (customerId: string | undefined, accountNumber: string, extra: Record<string, unknown> = {}) => ({
    ...(customerId ? { customerId } : {}),
    currency: 'USD',
    ...extra,
    accountInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: '021000021', bankName: 'Chase Bank', beneficiary: person() },
  });

  it('creates, filters by customer, and keeps one default UMA deposit account per customer', async () => {
    const api = await s.api.newPlatform();
    const jane = await customer(api);
    const joe = await customer(api);
    const first = await api.post('/customers/external-accounts', usd(jane, '1000001', { defaultUmaDepositAccount: true }));
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ customerId: jane, defaultUmaDepositAccount: true, status: 'ACTIVE' });
    const second = await api.post('/customers/external-accounts', usd(jane, '1000002', { defaultUmaDepositAccount: true }));
    expect(second.body.defaultUmaDepositAccount).toBe(true);
    expect((await api.get(`/customers/external-accounts/${first.body.id}`)).body.defaultUmaDepositAccount).toBe(false);
    await api.post('/customers/external-accounts', usd(joe, '1000003', { defaultUmaDepositAccount: true }));
    const platformOwned = await api.post('/customers/external-accounts', usd(undefined, '1000004'));
    expect(platformOwned.body.customerId).toBeUndefined();

    const janes = await api.get(`/customers/external-accounts?customerId=${encodeURIComponent(jane)}`);
    expect(janes.body.data.map((a: { id: string }) => a.id)).toEqual([first.body.id, second.body.id]);
    expect(janes.body.data.filter((a: { defaultUmaDepositAccount: boolean }) => a.defaultUmaDepositAccount)).toHaveLength(1);
    expect((await api.get('/customers/external-accounts')).body.totalCount).toBe(4);
    expect((await api.get('/platform/external-accounts')).body.data.map((a: { id: string }) => a.id)).toEqual([platformOwned.body.id]);
    // A customer's account is not one of the platform's own.
    expect((await api.get(`/platform/external-accounts/${first.body.id}`)).status).toBe(404);
    expect((await api.delete(`/customers/external-accounts/${first.body.id}`)).status).toBe(204);
  });

  it('China bank transfers are business-to-business: an individual customer cannot pay to one', async () => {
    const api = await s.api.newPlatform();
    const jane = await customer(api);
    const res = await api.post('/customers/external-accounts', { customerId: jane, currency: 'CNY', accountInfo: { accountType: 'CNY_ACCOUNT', bankName: 'ICBC', accountNumber: '6222021234567891', beneficiary: company() } });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['customerId']);
    const biz = await api.post('/customers', { customerType: 'BUSINESS', platformCustomerId: unique('biz'), businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14' } });
    expect(biz.status).toBe(201);
    const ok = await api.post('/customers/external-accounts', { customerId: biz.body.id, currency: 'CNY', accountInfo: { accountType: 'CNY_ACCOUNT', bankName: 'ICBC', accountNumber: '6222021234567891', beneficiary: company() } });
    expect(ok.status).toBe(201);
  });

  it('an unknown customer, or another platform\'s, is 400 INVALID_INPUT on customerId (the contract declares no 404 here)', async () => {
    const api = await s.api.newPlatform();
    const other = await s.api.newPlatform();
    const theirs = await customer(other);
    const res = await api.post('/customers/external-accounts', usd(theirs, '2000001'));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.details.errors.map((e: { field: string }) => e.field)).toEqual(['customerId']);
    expect((await api.get('/customers/external-accounts')).body.totalCount).toBe(0);
  });
});

describe('external accounts: webhook trigger', () => {
  it('EXTERNAL_ACCOUNT.STATUS_UPDATED can be triggered for an account, or for a fresh one', async () => {
    const api = await s.api.newPlatform();
    const account = await api.post('/platform/external-accounts', { currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '8000001', routingNumber: '021000021', beneficiary: person() } });
    const forAccount = await api.post('/_sandbox/webhooks/trigger', { type: 'EXTERNAL_ACCOUNT.STATUS_UPDATED', resourceId: account.body.id });
    expect(forAccount.status).toBe(201);
    expect(forAccount.body.data).toEqual(account.body);
    assertFitsWebhook('external-account-status', { id: forAccount.body.id, type: forAccount.body.type, timestamp: forAccount.body.timestamp, data: forAccount.body.data });
    const fresh = await api.post('/_sandbox/webhooks/trigger', { type: 'EXTERNAL_ACCOUNT.STATUS_UPDATED' });
    expect(fresh.status).toBe(201);
    expect((await api.get(`/platform/external-accounts/${fresh.body.resourceId}`)).body).toEqual(fresh.body.data);
    const unknown = await api.post('/_sandbox/webhooks/trigger', { type: 'EXTERNAL_ACCOUNT.STATUS_UPDATED', resourceId: 'ExternalAccount:nope' });
    expect(unknown.status).toBe(404);
  });
});

describe('external accounts: counterparty rules and ownership verification', () => {
  const rulesPlatform = async (): Promise<Api> => {
    const clientId = unique('travel-rule');
    const clientSecret = `secret-${clientId}`;
    const res = await s.api.post('/_sandbox/platforms', { clientId, clientSecret, counterpartyRules: true });
    expect(res.status).toBe(201);
    return s.api.as(clientId, clientSecret);
  };
  const wallet = (accountType: string, address: string, extra: Record<string, unknown> = {}, currency = 'USDC') => ({
    currency,
    ...extra,
    accountInfo: { accountType, address, ...((extra.accountInfo as object) ?? {}) },
  });

  it('requires ownershipType for self-custody wallets, and a beneficiary for THIRD_PARTY ones', async () => {
    const api = await rulesPlatform();
    const { evm } = evmKey();
    const missing = await api.post('/platform/external-accounts', wallet('BASE_WALLET', evm));
    expect(fields(missing.body)).toEqual(['ownershipType']);
    const custodial = await api.post('/platform/external-accounts', wallet('BASE_WALLET', evm, { accountInfo: { vaspName: 'Kraken' } }));
    expect(custodial.status).toBe(201);
    expect(custodial.body.status).toBe('ACTIVE');
    const third = await api.post('/platform/external-accounts', wallet('ETHEREUM_WALLET', evm, { ownershipType: 'THIRD_PARTY' }));
    expect(fields(third.body)).toEqual(['accountInfo.beneficiary']);
    const thirdOk = await api.post('/platform/external-accounts', wallet('ETHEREUM_WALLET', evm, { ownershipType: 'THIRD_PARTY', accountInfo: { beneficiary: company() } }));
    expect(thirdOk.body).toMatchObject({ status: 'ACTIVE', ownershipType: 'THIRD_PARTY', beneficiaryVerificationStatus: 'MATCHED' });
    // Without counterparty rules the same wallet needs no ownershipType.
    expect((await s.api.newPlatform().then((p) => p.post('/platform/external-accounts', wallet('BASE_WALLET', evm)))).status).toBe(201);
  });

  it('EVM: a FIRST_PARTY wallet verifies with an EIP-191 signature; a bad one makes it UNVERIFIED', async () => {
    const api = await rulesPlatform();
    const k = evmKey();
    const created = await api.post('/platform/external-accounts', wallet('BASE_WALLET', k.evm, { ownershipType: 'FIRST_PARTY' }));
    expect(created.body.status).toBe('PENDING_OWNERSHIP_VERIFICATION');
    const id = created.body.id;
    expect((await api.post(`/platform/external-accounts/${id}/verify`, { signature: '0x00' })).status).toBe(409);
    const stranger = await s.api.newPlatform();
    expect((await stranger.post(`/platform/external-accounts/${id}/challenge`, { method: 'WALLET_SIGNATURE' })).status).toBe(404);
    expect((await stranger.post(`/customers/external-accounts/${id}/verify`, { signature: '0x00' })).status).toBe(404);

    const challenge = await api.post(`/platform/external-accounts/${id}/challenge`, { method: 'WALLET_SIGNATURE' });
    expect(challenge.status).toBe(201);
    expect(challenge.body.messageToSign).toContain(k.evm);
    const other = evmKey();
    const wrong = await api.post(`/platform/external-accounts/${id}/verify`, { signature: rsvSign('\x19Ethereum Signed Message:\n', challenge.body.messageToSign, other.secret) });
    expect(wrong.status).toBe(400);
    expect((await api.get(`/platform/external-accounts/${id}`)).body.status).toBe('UNVERIFIED');

    const retry = await api.post(`/platform/external-accounts/${id}/challenge`, { method: 'WALLET_SIGNATURE' });
    expect((await api.get(`/platform/external-accounts/${id}`)).body.status).toBe('PENDING_OWNERSHIP_VERIFICATION');
    const ok = await api.post(`/platform/external-accounts/${id}/verify`, { signature: rsvSign('\x19Ethereum Signed Message:\n', retry.body.messageToSign, k.secret) });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('ACTIVE');
    expect((await api.post(`/platform/external-accounts/${id}/challenge`, { method: 'WALLET_SIGNATURE' })).status).toBe(409);

    // EXTERNAL_ACCOUNT.STATUS_UPDATED at each change: UNVERIFIED, PENDING_OWNERSHIP_VERIFICATION, ACTIVE.
    const events = await api.get(`/_sandbox/webhooks/deliveries?resourceId=${encodeURIComponent(id)}&type=EXTERNAL_ACCOUNT.STATUS_UPDATED&limit=10`);
    expect(events.status).toBe(200);
    const statuses = (events.body.data as { data: { status: string } }[]).map((e) => e.data.status).sort();
    expect(statuses).toEqual(['ACTIVE', 'PENDING_OWNERSHIP_VERIFICATION', 'UNVERIFIED']);
    for (const event of events.body.data as { id: string; type: string; timestamp: string; data: unknown }[]) {
      assertFitsWebhook('external-account-status', { id: event.id, type: event.type, timestamp: event.timestamp, data: event.data });
    }
  });

  it('an expired challenge fails verification (sandbox clock)', async () => {
    const api = await rulesPlatform();
    const k = evmKey();
    const created = await api.post('/platform/external-accounts', wallet('POLYGON_WALLET', k.evm, { ownershipType: 'FIRST_PARTY' }));
    const challenge = await api.post(`/platform/external-accounts/${created.body.id}/challenge`, { method: 'WALLET_SIGNATURE' });
    await api.advance(16 * 60);
    const late = await api.post(`/platform/external-accounts/${created.body.id}/verify`, { signature: rsvSign('\x19Ethereum Signed Message:\n', challenge.body.messageToSign, k.secret) });
    expect(late.status).toBe(400);
    expect(late.body.message).toMatch(/expired/);
  });

  it('Solana (base58 Ed25519), Tron and Spark (BIP-137) signatures verify', async () => {
    const api = await rulesPlatform();
    const k = evmKey();
    const secret = ed25519.utils.randomSecretKey();
    const sol = base58.encode(ed25519.getPublicKey(secret));
    const signers: [string, string, string, (message: string) => string][] = [
      ['SOLANA_WALLET', sol, 'USDC', (m) => base58.encode(ed25519.sign(encoder.encode(m), secret))],
      ['TRON_WALLET', k.tron, 'USDT', (m) => rsvSign('\x19TRON Signed Message:\n', m, k.secret)],
      ['SPARK_WALLET', k.spark, 'BTC', (m) => bip137Sign(m, k.secret)],
    ];
    for (const [accountType, address, currency, sign] of signers) {
      const created = await api.post('/customers/external-accounts', wallet(accountType, address, { ownershipType: 'FIRST_PARTY' }, currency));
      expect(created.body.status, accountType).toBe('PENDING_OWNERSHIP_VERIFICATION');
      const challenge = await api.post(`/customers/external-accounts/${created.body.id}/challenge`, { method: 'WALLET_SIGNATURE' });
      const ok = await api.post(`/customers/external-accounts/${created.body.id}/verify`, { signature: sign(challenge.body.messageToSign) });
      expect(ok.status, `${accountType} ${JSON.stringify(ok.body)}`).toBe(200);
      expect(ok.body.status).toBe('ACTIVE');
    }
  });

  it('LIVENESS: the hosted link completes the check asynchronously', async () => {
    const api = await rulesPlatform();
    const k = evmKey();
    const created = await api.post('/platform/external-accounts', wallet('BASE_WALLET', k.evm, { ownershipType: 'FIRST_PARTY' }));
    const challenge = await api.post(`/platform/external-accounts/${created.body.id}/challenge`, { method: 'LIVENESS' });
    expect(challenge.status).toBe(201);
    const page = await fetch(challenge.body.verificationLink);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(k.evm);
    const done = await fetch(challenge.body.verificationLink, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ outcome: 'pass' }) });
    expect(await done.json()).toEqual({ status: 'ACTIVE' });
    expect((await api.get(`/platform/external-accounts/${created.body.id}`)).body.status).toBe('ACTIVE');
    expect((await fetch(challenge.body.verificationLink)).status).toBe(404);
  });

  it('LIVENESS: a failed check makes the account UNVERIFIED; a new challenge reopens it', async () => {
    const api = await rulesPlatform();
    const k = evmKey();
    const created = await api.post('/customers/external-accounts', wallet('ETHEREUM_WALLET', k.evm, { ownershipType: 'FIRST_PARTY' }));
    const id = created.body.id;
    const first = await api.post(`/customers/external-accounts/${id}/challenge`, { method: 'LIVENESS' });
    const form = new URLSearchParams({ outcome: 'fail' });
    const failed = await fetch(first.body.verificationLink, { method: 'POST', body: form });
    expect(failed.status).toBe(200);
    expect((await api.get(`/customers/external-accounts/${id}`)).body.status).toBe('UNVERIFIED');
    const second = await api.post(`/customers/external-accounts/${id}/challenge`, { method: 'LIVENESS' });
    expect(second.body.verificationLink).not.toBe(first.body.verificationLink);
    expect((await api.get(`/customers/external-accounts/${id}`)).body.status).toBe('PENDING_OWNERSHIP_VERIFICATION');
    // The first link is spent; a WALLET_SIGNATURE verify has no challenge to answer while LIVENESS is open.
    expect((await fetch(first.body.verificationLink)).status).toBe(404);
    expect((await api.post(`/customers/external-accounts/${id}/verify`, { signature: '0x00' })).status).toBe(409);
  });

  it('challenges apply only to FIRST_PARTY self-custody wallets', async () => {
    const api = await rulesPlatform();
    const bank = await api.post('/platform/external-accounts', { currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '3000001', routingNumber: '021000021', beneficiary: person() } });
    expect((await api.post(`/platform/external-accounts/${bank.body.id}/challenge`, { method: 'WALLET_SIGNATURE' })).status).toBe(409);
    expect((await api.post('/platform/external-accounts/ExternalAccount:nope/challenge', { method: 'WALLET_SIGNATURE' })).status).toBe(404);
    expect((await api.post(`/platform/external-accounts/${bank.body.id}/challenge`, { method: 'SELFIE' })).status).toBe(400);
  });
});
