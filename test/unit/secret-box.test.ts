import { createCipheriv, randomBytes } from 'node:crypto';
import { createSecretBox, keyId, parseKeyring } from '../../src/support/secret-box';

const keyA = randomBytes(32);
const keyB = randomBytes(32);

/** A value in the format before key ids (v1.<iv>.<body>.<tag>), as earlier releases stored it. */
function sealV1(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

describe('secret box with key ids', () => {
  test('the key id is the first 8 bytes of HMAC-SHA256(key, "secrets-key-id"), stable and distinct per key', () => {
    expect(keyId(keyA)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyId(Buffer.from(keyA))).toBe(keyId(keyA));
    expect(keyId(keyB)).not.toBe(keyId(keyA));
  });

  test('sealed values are v2.<kid>.<iv>.<body>.<tag> and open again', () => {
    const box = createSecretBox(keyA);
    const sealed = box.seal('whsec_abc');
    const parts = sealed.split('.');
    expect(parts).toHaveLength(5);
    expect(parts[0]).toBe('v2');
    expect(parts[1]).toBe(keyId(keyA));
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    expect(box.isCurrent(sealed)).toBe(true);
  });

  test('v1 values (no key id) still open, and are not current', () => {
    const box = createSecretBox(keyA);
    const legacy = sealV1(keyA, 'whsec_old');
    expect(box.open(legacy)).toBe('whsec_old');
    expect(box.isCurrent(legacy)).toBe(false);
  });

  test('during a rotation the previous key opens its values (v1 and v2); the current key seals', () => {
    const old = createSecretBox(keyA);
    const sealedA = old.seal('whsec_a');
    const legacyA = sealV1(keyA, 'whsec_legacy');
    const ring = createSecretBox({ current: keyB, previous: [keyA] });
    expect(ring.open(sealedA)).toBe('whsec_a');
    expect(ring.open(legacyA)).toBe('whsec_legacy');
    expect(ring.isCurrent(sealedA)).toBe(false);
    expect(ring.seal('x').split('.')[1]).toBe(keyId(keyB));
  });

  test('without the sealing key: a clear error naming the key id, never the secret', () => {
    const sealedA = createSecretBox(keyA).seal('whsec_secret');
    const onlyB = createSecretBox(keyB);
    expect(() => onlyB.open(sealedA)).toThrow(new RegExp(`key id ${keyId(keyA)}.*SECRETS_KEY_PREVIOUS`));
    expect(() => onlyB.open(sealV1(keyA, 'whsec_secret'))).toThrow(/v1.*SECRETS_KEY_PREVIOUS/);
    expect(() => onlyB.open('garbage')).toThrow(/unknown format/);
  });

  test('a tampered value does not open', () => {
    const box = createSecretBox(keyA);
    const [v, kid, iv, body, tag] = box.seal('whsec_abc').split('.');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([v, kid, iv, flipped.toString('base64url'), tag].join('.'))).toThrow();
  });

  test('parseKeyring: SECRETS_KEY plus comma-separated SECRETS_KEY_PREVIOUS, without repeats; bad keys are named', () => {
    const ring = parseKeyring(keyB.toString('base64'), ` ${keyA.toString('base64')}, ${keyB.toString('base64')},${keyA.toString('base64')} `);
    expect(ring.current.equals(keyB)).toBe(true);
    expect(ring.previous).toHaveLength(1);
    expect(ring.previous[0].equals(keyA)).toBe(true);
    expect(parseKeyring(keyA.toString('base64')).previous).toEqual([]);
    expect(() => parseKeyring(keyA.toString('base64'), 'c2hvcnQ=')).toThrow(/SECRETS_KEY_PREVIOUS must be 32 random bytes/);
    expect(() => parseKeyring('c2hvcnQ=')).toThrow(/^SECRETS_KEY must be 32 random bytes/);
  });
});
