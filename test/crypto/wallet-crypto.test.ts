import { describe, expect, it } from 'vitest';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { decryptCredentialBundle, encryptOtpCodeToBundle, formatHpkeBuf, generateP256KeyPair, hpkeDecrypt, hpkeEncrypt } from '@turnkey/crypto';
import { decodeBase58Check, encodeBase58Check } from '../../src/crypto/base58check.js';
import { parseBundle, signBundle, verifyBundle } from '../../src/crypto/bundle.js';
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { hkdfExpand, hkdfExtract, HPKE_INFO, HpkeError, hpkeOpen, hpkeSeal, sealSessionSigningKey } from '../../src/crypto/hpke.js';
import { fromHex, generateSigningKey, KeyFormatError, parsePublicKey, toHex, uncompressPublicKey } from '../../src/crypto/keys.js';
import { checkOidcClaims, checkOidcVerify, decodeOidcToken, OidcError, oidcNonceOf } from '../../src/crypto/oidc.js';
import { parseStamp, signStamp, stampWith, StampError, verifyStamp } from '../../src/crypto/stamp.js';

// A fixed key and vectors made once with @turnkey/crypto (hpkeEncrypt + formatHpkeBuf) and
// @turnkey/api-key-stamper (ApiKeyStamper.stamp): known answers, not round trips.
const KAT = {
  secretKey: '5f9c3c0a2a5d6b1e7c4f8a9b0c1d2e3f405162738495a6b7c8d9eafb0c1d2e3f',
  publicUncompressed: '04c3b29e7aeb550ae76654307c1b6d442d786f486b143153ff68a7b573cb7e912373a6ece1d6db78fe3435ed646351de15f15f311c8d0b8c265a8967b67bdd7c03',
  publicCompressed: '03c3b29e7aeb550ae76654307c1b6d442d786f486b143153ff68a7b573cb7e9123',
  otpPlaintext: '{"otp_code":"000000","public_key":"04c3b29e7aeb550ae76654307c1b6d442d786f486b143153ff68a7b573cb7e912373a6ece1d6db78fe3435ed646351de15f15f311c8d0b8c265a8967b67bdd7c03"}',
  otpBundle: {
    encappedPublic: '047e75aee8e0f0c9a599b7abbd1c578bb54a9389e984371e0fd92ede79d1bb2924279344abd9c9091da01c038c62cd96a2e792a316a727346cbd9ad71143b0f022',
    ciphertext:
      'e2f0d3a9ca6867edfd452bb9b1dff1d277acdbf58dc60ae343139aa9ebb47a90e90395f3315f301358a14b0734a4184f0e68e11a6a659188304c973d07ff5132e4e7d5a4d1335d0fa72e9a359b1cd34f3857f4b5e33c6a565fdfc155587eb52a2ecc1c0340920781dc96a0ef82056a3e89179f1ae0c48e75fc0fbdc7db3757fffb0f03a4beea798162bc72cae10dc3152970ed0c9989698481e9536b66c08b954bba2cf852292389cdfb8c80672a225f1f62c9d3491b8c',
  },
  stampPayload: '{"type":"ACTIVITY_TYPE_KAT","timestampMs":"1775681700000"}',
  stamp:
    'eyJwdWJsaWNLZXkiOiIwM2MzYjI5ZTdhZWI1NTBhZTc2NjU0MzA3YzFiNmQ0NDJkNzg2ZjQ4NmIxNDMxNTNmZjY4YTdiNTczY2I3ZTkxMjMiLCJzY2hlbWUiOiJTSUdOQVRVUkVfU0NIRU1FX1RLX0FQSV9QMjU2Iiwic2lnbmF0dXJlIjoiMzA0NDAyMjAwODMzYjIwMDQ3NGUwM2MzMTFlMjYzNDQ2M2VjOTA2MWYyN2RmODVjYmE2MDk4NWI5OGYzMDI4YTk4OGQxMWUwMDIyMDUzZDc1YTZhZmEyOWY2ODkwNmRlMmY1YTk4YmJmYjg2NGYzNjgxOGUwYzgyNGNhNzdhMDAwODg4NDE4MTZhNDYifQ',
};

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims: Record<string, unknown>) => `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url(claims)}.c2lnbmF0dXJl`;

describe('keys', () => {
  it('parses both SEC1 forms and names what is wrong', () => {
    expect(parsePublicKey(KAT.publicCompressed).form).toBe('compressed');
    expect(parsePublicKey(KAT.publicUncompressed).form).toBe('uncompressed');
    const reason = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(KeyFormatError);
        return (error as KeyFormatError).reason;
      }
      throw new Error('expected a KeyFormatError');
    };
    expect(reason(() => parsePublicKey('zz'))).toMatch(/hex/);
    expect(reason(() => parsePublicKey(KAT.publicCompressed.slice(0, 64)))).toMatch(/compressed/);
    expect(reason(() => parsePublicKey(KAT.publicUncompressed, 'key', 'compressed'))).toMatch(/must be a compressed/);
    // x = 1 is not the abscissa of a P-256 point.
    expect(reason(() => parsePublicKey(`02${'00'.repeat(31)}01`))).toMatch(/not a point/);
    expect(reason(() => parsePublicKey(`04${'11'.repeat(64)}`))).toMatch(/not a point/);
  });
});

describe('hpke', () => {
  it('opens the OTP bundle @turnkey/crypto made (known answer)', async () => {
    const plaintext = await hpkeOpen(fromHex(KAT.secretKey), { encappedPublic: fromHex(KAT.otpBundle.encappedPublic), ciphertext: fromHex(KAT.otpBundle.ciphertext) });
    expect(new TextDecoder().decode(plaintext)).toBe(KAT.otpPlaintext);
  });

  it('opens a fresh hpkeEncrypt/formatHpkeBuf bundle and refuses a tampered one, a wrong key or a bad point', async () => {
    const target = generateP256KeyPair();
    const wire = JSON.parse(formatHpkeBuf(hpkeEncrypt({ plainTextBuf: new TextEncoder().encode('hello'), targetKeyBuf: fromHex(target.publicKeyUncompressed) }))) as { encappedPublic: string; ciphertext: string };
    const sealed = { encappedPublic: fromHex(wire.encappedPublic), ciphertext: fromHex(wire.ciphertext) };
    expect(new TextDecoder().decode(await hpkeOpen(fromHex(target.privateKey), sealed))).toBe('hello');
    const tampered = sealed.ciphertext.slice();
    tampered[0]! ^= 1;
    await expect(hpkeOpen(fromHex(target.privateKey), { ...sealed, ciphertext: tampered })).rejects.toThrow(HpkeError);
    await expect(hpkeOpen(fromHex(KAT.secretKey), sealed)).rejects.toThrow(/does not decrypt/);
    await expect(hpkeOpen(fromHex(target.privateKey), { ...sealed, ciphertext: sealed.ciphertext.slice(0, 8) })).rejects.toThrow(/shorter/);
    await expect(hpkeOpen(fromHex(target.privateKey), { ...sealed, encappedPublic: fromHex(`04${'11'.repeat(64)}`) })).rejects.toThrow(/not a point/);
  });

  it('seals so that @turnkey/crypto hpkeDecrypt opens it', async () => {
    const client = generateP256KeyPair();
    const sealed = await hpkeSeal(fromHex(client.publicKeyUncompressed), new TextEncoder().encode('mnemonic words'));
    const opened = hpkeDecrypt({ ciphertextBuf: sealed.ciphertext, encappedKeyBuf: sealed.encappedPublic, receiverPriv: client.privateKey });
    expect(new TextDecoder().decode(opened)).toBe('mnemonic words');
  });

  it('seals the legacy session key so that decryptCredentialBundle returns the scalar', async () => {
    const client = generateP256KeyPair();
    const scalar = fromHex(KAT.secretKey);
    const bundle = await sealSessionSigningKey(fromHex(client.publicKeyUncompressed), scalar);
    expect(decryptCredentialBundle(bundle, client.privateKey)).toBe(KAT.secretKey);
    // 33-byte compressed encapsulated key, 32-byte scalar, 16-byte tag.
    expect(decodeBase58Check(bundle)!.length).toBe(33 + 32 + 16);
  });
});

describe('base58check', () => {
  it('matches the Bitcoin vector and rejects a bad checksum', () => {
    expect(encodeBase58Check(new Uint8Array(21))).toBe('1111111111111111111114oLvT2');
    expect(toHex(decodeBase58Check('1111111111111111111114oLvT2')!)).toBe('00'.repeat(21));
    expect(decodeBase58Check('1111111111111111111114oLvT3')).toBeUndefined();
  });
});

describe('stamp', () => {
  it('verifies the ApiKeyStamper stamp (known answer) and only over the same payload', () => {
    const stamp = parseStamp(KAT.stamp);
    expect(stamp.publicKey).toBe(KAT.publicCompressed);
    expect(verifyStamp(stamp, KAT.stampPayload)).toBe(true);
    expect(verifyStamp(stamp, `${KAT.stampPayload} `)).toBe(false);
  });

  it('verifies fresh ApiKeyStamper stamps and its own', async () => {
    const key = generateP256KeyPair();
    const { stampHeaderValue } = await new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }).stamp('payload');
    expect(verifyStamp(parseStamp(stampHeaderValue), 'payload')).toBe(true);
    expect(verifyStamp(parseStamp(signStamp('payload', key.privateKey)), 'payload')).toBe(true);
    expect(parseStamp(signStamp('payload', key.privateKey)).publicKey).toBe(key.publicKey);
  });

  it('stampWith a generated signing key sends what ApiKeyStamper sends for that key', async () => {
    const key = generateSigningKey();
    expect(toHex(key.publicKeyUncompressed)).toBe(toHex(uncompressPublicKey(key.publicKey)));
    const ours = JSON.parse(Buffer.from(stampWith('payload', key), 'base64url').toString()) as Record<string, string>;
    const { stampHeaderValue } = await new ApiKeyStamper({ apiPublicKey: toHex(key.publicKey), apiPrivateKey: toHex(key.secretKey) }).stamp('payload');
    const theirs = JSON.parse(Buffer.from(stampHeaderValue, 'base64url').toString()) as Record<string, string>;
    // ECDSA signatures are randomised: the same fields in the same order, and both verify.
    expect(Object.keys(ours)).toEqual(Object.keys(theirs));
    expect({ ...ours, signature: '' }).toEqual({ ...theirs, signature: '' });
    expect(verifyStamp(parseStamp(stampWith('payload', key)), 'payload')).toBe(true);
    expect(verifyStamp(parseStamp(stampHeaderValue), 'payload')).toBe(true);
  });

  it('names why a stamp is malformed', () => {
    const kind = (header: string) => {
      try {
        parseStamp(header);
      } catch (error) {
        expect(error).toBeInstanceOf(StampError);
        return (error as StampError).reason;
      }
      throw new Error('expected a StampError');
    };
    const good = JSON.parse(Buffer.from(KAT.stamp, 'base64url').toString()) as Record<string, string>;
    expect(kind('not base64!')).toMatch(/base64url/);
    expect(kind(Buffer.from('nope').toString('base64url'))).toMatch(/JSON/);
    expect(kind(b64url({ ...good, scheme: 'OTHER' }))).toMatch(/scheme/);
    expect(kind(b64url({ ...good, publicKey: KAT.publicUncompressed }))).toMatch(/compressed/);
    expect(kind(b64url({ ...good, signature: 'zz' }))).toMatch(/hex/);
    expect(kind(b64url({ ...good, signature: 'abcd' }))).toMatch(/DER/);
    expect(kind(b64url({ publicKey: good.publicKey }))).toMatch(/string/);
  });
});

describe('bundle', () => {
  it('signs deterministically, verifies, and @turnkey/crypto encryptOtpCodeToBundle accepts it', async () => {
    const data = { targetPublic: KAT.publicUncompressed, organizationId: 'org' };
    const bundle = signBundle(data, fromHex(KAT.secretKey));
    expect(signBundle(data, fromHex(KAT.secretKey))).toBe(bundle);
    const parsed = parseBundle(bundle);
    expect(parsed.data).toEqual(data);
    expect(parsed.enclaveQuorumPublic).toBe(KAT.publicUncompressed);
    expect(verifyBundle(parsed, KAT.publicUncompressed)).toBe(true);
    expect(verifyBundle({ ...parsed, dataHex: parsed.dataHex.replace(/.$/, '0') })).toBe(false);
    const encrypted = await encryptOtpCodeToBundle('000000', bundle, KAT.publicUncompressed, parsed.enclaveQuorumPublic);
    const wire = JSON.parse(encrypted) as { encappedPublic: string; ciphertext: string };
    const opened = await hpkeOpen(fromHex(KAT.secretKey), { encappedPublic: fromHex(wire.encappedPublic), ciphertext: fromHex(wire.ciphertext) });
    expect(JSON.parse(new TextDecoder().decode(opened))).toEqual({ otp_code: '000000', public_key: KAT.publicUncompressed });
  });
});

describe('oidc', () => {
  const nowMs = 1_775_681_700_000;
  const now = nowMs / 1000;
  const options = { nowMs, supportedIssuers: new Set(['https://accounts.google.com']), maxAgeSeconds: 60, skewSeconds: 5 };
  const base = { iss: 'https://accounts.google.com', aud: 'client.apps', sub: '1122334455', iat: now - 10, exp: now + 3600 };
  const reason = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(OidcError);
      return `${(error as OidcError).kind}: ${(error as OidcError).reason}`;
    }
    throw new Error('expected an OidcError');
  };

  it('accepts good claims (string or one-element aud) and checks each rule', () => {
    expect(checkOidcClaims(decodeOidcToken(jwt(base)), options)).toEqual({ iss: base.iss, aud: base.aud, sub: base.sub });
    expect(checkOidcClaims({ ...base, aud: ['client.apps'] }, options).aud).toBe('client.apps');
    expect(reason(() => checkOidcClaims({ ...base, iss: 'https://evil.example' }, options))).toMatch(/MALFORMED.*issuer/);
    expect(reason(() => checkOidcClaims({ ...base, aud: ['a', 'b'] }, options))).toMatch(/REJECTED.*aud/);
    expect(reason(() => checkOidcClaims({ ...base, sub: '' }, options))).toMatch(/sub/);
    expect(reason(() => checkOidcClaims({ ...base, iat: now - 66 }, options))).toMatch(/60 seconds old/);
    expect(checkOidcClaims({ ...base, iat: now - 64 }, options).sub).toBe(base.sub);
    expect(reason(() => checkOidcClaims({ ...base, iat: now + 6 }, options))).toMatch(/future/);
    expect(reason(() => checkOidcClaims({ ...base, exp: now }, options))).toMatch(/expired/);
    expect(reason(() => checkOidcClaims({ ...base, iat: String(now) }, options))).toMatch(/numeric/);
  });

  it('with two instants (sandbox clock a day ahead, real time), all time claims must hold at one of them, same rules at each', () => {
    const two = { ...options, nowMs: [nowMs + 86_400_000, nowMs] };
    const ahead = now + 86_400;
    expect(checkOidcClaims(base, two).sub).toBe(base.sub);
    expect(checkOidcClaims({ ...base, iat: ahead - 10, exp: ahead + 300 }, two).sub).toBe(base.sub);
    expect(checkOidcClaims({ ...base, iat: now - 64 }, two).sub).toBe(base.sub);
    expect(reason(() => checkOidcClaims({ ...base, iat: now - 66 }, two))).toBe(
      'REJECTED: oidcToken iat is more than 60 seconds old on the sandbox clock, and iat is more than 60 seconds old on real time',
    );
    expect(reason(() => checkOidcClaims({ ...base, iat: ahead, exp: now + 300 }, two))).toBe(
      'REJECTED: oidcToken has expired (exp) on the sandbox clock, and iat is in the future on real time',
    );
  });

  it('rejects malformed tokens and the retired literal', () => {
    expect(reason(() => decodeOidcToken('abc'))).toMatch(/MALFORMED/);
    expect(reason(() => decodeOidcToken('a.b.c'))).toMatch(/MALFORMED/);
    expect(reason(() => decodeOidcToken('sandbox-valid-oidc-token'))).toMatch(/REJECTED.*no longer/);
  });

  it('checks identity and nonce on verify', () => {
    const key = KAT.publicCompressed;
    const registered = { iss: base.iss, aud: base.aud, sub: base.sub };
    expect(oidcNonceOf('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(checkOidcVerify({ ...base, nonce: oidcNonceOf(key) }, registered, key, options).sub).toBe(base.sub);
    expect(reason(() => checkOidcVerify({ ...base, nonce: oidcNonceOf(key.toUpperCase()) }, registered, key, options))).toMatch(/nonce/);
    expect(reason(() => checkOidcVerify({ ...base, sub: 'other', nonce: oidcNonceOf(key) }, registered, key, options))).toMatch(/match/);
  });
});

describe('HKDF-SHA256 (node:crypto HMAC)', () => {
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  it('matches RFC 5869 test cases 1 and 3 (with and without salt)', () => {
    const ikm = fromHex('0b'.repeat(22));
    const prk1 = hkdfExtract(fromHex('000102030405060708090a0b0c'), ikm);
    expect(hex(prk1)).toBe('077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5');
    expect(hex(hkdfExpand(prk1, fromHex('f0f1f2f3f4f5f6f7f8f9'), 42))).toBe('3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865');
    const prk3 = hkdfExtract(new Uint8Array(0), ikm);
    expect(hex(prk3)).toBe('19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04');
    expect(hex(hkdfExpand(prk3, new Uint8Array(0), 42))).toBe('8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8');
  });
});

describe('HPKE against @hpke/core (the same suite, WebCrypto)', () => {
  const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
  const buffer = (bytes: Uint8Array) => bytes.slice().buffer as ArrayBuffer;
  const aad = (enc: Uint8Array, recipient: string) => buffer(new Uint8Array([...enc, ...fromHex(recipient)]));

  it('@hpke/core opens what hpkeSeal seals', async () => {
    const target = generateP256KeyPair();
    const sealed = await hpkeSeal(fromHex(target.publicKeyUncompressed), new TextEncoder().encode('hello hpke'));
    const recipientKey = await suite.kem.importKey('jwk', { kty: 'EC', crv: 'P-256', d: Buffer.from(fromHex(target.privateKey)).toString('base64url'), x: Buffer.from(fromHex(target.publicKeyUncompressed).slice(1, 33)).toString('base64url'), y: Buffer.from(fromHex(target.publicKeyUncompressed).slice(33)).toString('base64url') }, false);
    const context = await suite.createRecipientContext({ recipientKey, enc: buffer(sealed.encappedPublic), info: buffer(HPKE_INFO) });
    expect(new TextDecoder().decode(await context.open(buffer(sealed.ciphertext), aad(sealed.encappedPublic, target.publicKeyUncompressed)))).toBe('hello hpke');
  });

  it('hpkeOpen opens what @hpke/core seals', async () => {
    const target = generateP256KeyPair();
    const sender = await suite.createSenderContext({ recipientPublicKey: await suite.kem.deserializePublicKey(buffer(fromHex(target.publicKeyUncompressed))), info: buffer(HPKE_INFO) });
    const enc = new Uint8Array(sender.enc);
    const ciphertext = new Uint8Array(await sender.seal(buffer(new TextEncoder().encode('from @hpke/core')), aad(enc, target.publicKeyUncompressed)));
    expect(new TextDecoder().decode(await hpkeOpen(fromHex(target.privateKey), { encappedPublic: enc, ciphertext }))).toBe('from @hpke/core');
  });
});
