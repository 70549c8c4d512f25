import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { keyId } from '../../src/support/secret-box';
import { createPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, payloadKey } from '../../src/temporal/payload-codec';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const customer = { customer: { name: 'Ama Mensah', identifier: '233241234567' }, description: 'Test order' };
const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');

describe('payload codec', () => {
  test('encodes to binary/encrypted with the key id; nothing of the value in clear; decodes back', async () => {
    const codec = createPayloadCodec({ current: keyA, previous: [] });
    const plain = defaultPayloadConverter.toPayload(customer);
    const [encoded] = await codec.encode([plain]);
    expect(text(encoded.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encoded.metadata?.[KEY_ID_METADATA])).toBe(keyId(keyA));
    expect(Object.keys(encoded.metadata ?? {}).sort()).toEqual(['encoding', KEY_ID_METADATA].sort());
    const raw = Buffer.from(encoded.data!).toString('latin1');
    for (const secret of ['Ama', 'Mensah', '233241234567', 'Test order', 'json/plain']) expect(raw).not.toContain(secret);
    const [decoded] = await codec.decode([encoded]);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual(customer);
    expect(text(decoded.metadata?.encoding)).toBe('json/plain');
  });

  test('the payload key is derived by HKDF, not the SECRETS_KEY itself (nor the secret box key)', () => {
    expect(payloadKey(keyA)).toHaveLength(32);
    expect(payloadKey(keyA).equals(keyA)).toBe(false);
    expect(payloadKey(keyA).equals(payloadKey(keyB))).toBe(false);
  });

  test('payloads without the encrypted encoding pass through decode unchanged (histories recorded before the codec)', async () => {
    const codec = createPayloadCodec({ current: keyA, previous: [] });
    const plain = defaultPayloadConverter.toPayload({ chargeId: 'ch_1' });
    const [decoded] = await codec.decode([plain]);
    expect(decoded).toBe(plain);
    const empty: Payload = { metadata: { encoding: Buffer.from('binary/null') } };
    expect(await codec.decode([empty])).toEqual([empty]);
  });

  test('after a rotation, payloads of the previous key decode; new ones carry the new key id', async () => {
    const [old] = await createPayloadCodec({ current: keyA, previous: [] }).encode([defaultPayloadConverter.toPayload(customer)]);
    const rotated = createPayloadCodec({ current: keyB, previous: [keyA] });
    expect(defaultPayloadConverter.fromPayload(await rotated.decode([old]).then((p) => p[0]))).toEqual(customer);
    const [fresh] = await rotated.encode([defaultPayloadConverter.toPayload(1)]);
    expect(text(fresh.metadata?.[KEY_ID_METADATA])).toBe(keyId(keyB));
  });

  test('an unknown key id or tampered data is an error, not garbage', async () => {
    const [sealed] = await createPayloadCodec({ current: keyA, previous: [] }).encode([defaultPayloadConverter.toPayload(customer)]);
    await expect(createPayloadCodec({ current: keyB, previous: [] }).decode([sealed])).rejects.toThrow(new RegExp(`key id "${keyId(keyA)}"`));
    const data = Buffer.from(sealed.data!);
    data[20] ^= 1;
    await expect(createPayloadCodec({ current: keyA, previous: [] }).decode([{ ...sealed, data }])).rejects.toThrow();
    // The key id is authenticated: relabelling a payload with another known key id fails.
    const relabelled = { ...sealed, metadata: { ...sealed.metadata, [KEY_ID_METADATA]: Buffer.from(keyId(keyB)) } };
    await expect(createPayloadCodec({ current: keyB, previous: [keyA] }).decode([relabelled])).rejects.toThrow();
  });
});
