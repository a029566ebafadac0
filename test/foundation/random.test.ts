import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seededRandom, systemRandom } from '../../src/core/random.js';
import { SandboxClock } from '../../src/core/clock.js';
import { generateKeyPair, publicKeyOf } from '../../src/crypto/keys.js';
import { hpkeOpen, hpkeSeal } from '../../src/crypto/hpke.js';
import { WebhookSigner } from '../../src/events/signing.js';
import { MetaRepo, metaMigrations } from '../../src/store/meta.js';
import { migrate, openDatabase } from '../../src/store/db.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('the random source', () => {
  it('seeded: the same seed and stream give the same bytes however they are drawn; streams, seeds and starts differ', () => {
    const a = seededRandom('42').stream('ids');
    const b = seededRandom('42').stream('ids');
    const whole = hex(a.bytes(100));
    expect(hex(b.bytes(30)) + hex(b.bytes(70))).toBe(whole);
    expect(hex(seededRandom('42').stream('other').bytes(100))).not.toBe(whole);
    expect(hex(seededRandom('43').stream('ids').bytes(100))).not.toBe(whole);
    expect(hex(seededRandom('42', 1).stream('ids').bytes(100))).not.toBe(whole);
    // A stream drawing more does not shift another stream.
    const root = seededRandom('42');
    root.stream('noise').bytes(1000);
    expect(hex(root.stream('ids').bytes(100))).toBe(whole);
    expect(seededRandom('42').seeded).toBe(true);
  });

  it('floats are uniform in [0, 1); the system source is not seeded and never repeats', () => {
    const random = seededRandom('floats');
    const draws = Array.from({ length: 10_000 }, () => random.float());
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    const mean = draws.reduce((sum, x) => sum + x, 0) / draws.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.02);
    const system = systemRandom();
    expect(system.seeded).toBe(false);
    expect(hex(system.bytes(32))).not.toBe(hex(system.bytes(32)));
  });

  it('keys, HPKE seals and webhook signatures drawn from a seeded source repeat, and are real', async () => {
    const keys = [generateKeyPair(seededRandom('k')), generateKeyPair(seededRandom('k'))];
    expect(hex(keys[0]!.secretKey)).toBe(hex(keys[1]!.secretKey));
    expect(hex(keys[0]!.publicKey)).toBe(hex(publicKeyOf(keys[0]!.secretKey)));
    const recipient = generateKeyPair(seededRandom('r'));
    const ephemeral = generateKeyPair(seededRandom('e')).secretKey;
    const message = new TextEncoder().encode('hello');
    const sealed = [await hpkeSeal(recipient.publicKey, message, ephemeral), await hpkeSeal(recipient.publicKey, message, ephemeral)];
    expect(hex(sealed[0]!.ciphertext)).toBe(hex(sealed[1]!.ciphertext));
    expect(new TextDecoder().decode(await hpkeOpen(recipient.secretKey, sealed[0]!))).toBe('hello');
    // Without a drawn ephemeral key, each seal differs.
    expect(hex((await hpkeSeal(recipient.publicKey, message)).ciphertext)).not.toBe(hex((await hpkeSeal(recipient.publicKey, message)).ciphertext));

    const signerOf = (random?: ReturnType<typeof seededRandom>) => {
      const db = openDatabase(':memory:');
      migrate(db, metaMigrations);
      const tx = db.transaction((fn: () => unknown) => fn());
      return WebhookSigner.forDatabase(new MetaRepo(db), <T>(fn: () => T) => tx(fn) as T, random);
    };
    const [one, two] = [signerOf(seededRandom('w')), signerOf(seededRandom('w'))];
    expect(one.publicKeyPem).toBe(two.publicKeyPem);
    const body = '{"id":"Event:1"}';
    expect(one.signature(body)).toBe(two.signature(body));
    expect(verify('sha256', Buffer.from(body), { key: createPublicKey(one.publicKeyPem), dsaEncoding: 'der' }, Buffer.from(one.signature(body), 'base64'))).toBe(true);
    const unseeded = signerOf();
    expect(unseeded.publicKeyPem).not.toBe(one.publicKeyPem);
    expect(verify('sha256', Buffer.from(body), { key: createPublicKey(unseeded.publicKeyPem), dsaEncoding: 'der' }, Buffer.from(unseeded.signature(body), 'base64'))).toBe(true);
  });
});

describe('a still clock', () => {
  it('stands at its start plus the offset, moves only when told, resets to its start, and judges client times on real time too', () => {
    let real = Date.parse('2026-05-01T12:00:00Z');
    const start = Date.parse('2030-01-01T00:00:00Z');
    const clock = new SandboxClock(() => real, {}, () => {}, start);
    expect(clock.still).toBe(true);
    expect(clock.iso()).toBe('2030-01-01T00:00:00.000Z');
    real += 5_000;
    expect(clock.now()).toBe(start);
    clock.moveTo(start + 60_000);
    expect(clock.offset).toBe(60_000);
    expect(clock.clientTimes()).toEqual([start + 60_000, real]);
    expect(clock.reset()).toBe(start + 60_000);
    expect(clock.now()).toBe(start);
    const following = new SandboxClock(() => real);
    expect(following.still).toBe(false);
    expect(following.clientTimes()).toEqual([real]);
  });
});
