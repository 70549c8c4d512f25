import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { keyId, type Keyring } from '../support/secret-box';

/**
 * Encrypts every workflow payload (inputs, results, activity arguments, signals, queries, updates,
 * markers) with AES-256-GCM before it reaches the Temporal server, so customer names, identifiers,
 * descriptions and metadata are not in workflow history in clear.
 *
 * The key is derived from SECRETS_KEY by HKDF-SHA256 with a label of its own (the secret box uses the
 * key itself), and each payload names it by the SECRETS_KEY's key id (`keyId`), so histories written
 * before a rotation still decode while the old key is in SECRETS_KEY_PREVIOUS. Payloads without the
 * encrypted encoding (histories recorded before the codec, test fixtures) pass through unchanged.
 * Search attributes and memos are not payloads the codec sees; workflow ids are visible too.
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const HKDF_INFO = 'payment-engine/temporal-payload-codec/v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const { Payload: PayloadMessage } = temporal.api.common.v1;

/** The payload key of one SECRETS_KEY. */
export function payloadKey(secretsKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), HKDF_INFO, 32));
}

function text(bytes: Uint8Array | null | undefined): string | undefined {
  return bytes ? Buffer.from(bytes).toString('utf8') : undefined;
}

export function createPayloadCodec(ring: Keyring): PayloadCodec {
  const currentId = keyId(ring.current);
  // KeyObjects made once (issue 48): a raw Buffer key is turned into one on every cipher, which
  // profiled at half the codec's CPU in the worker.
  const currentKey: KeyObject = createSecretKey(payloadKey(ring.current));
  const keys = new Map([ring.current, ...ring.previous].map((k) => [keyId(k), createSecretKey(payloadKey(k))]));
  const currentAad = Buffer.from(currentId, 'utf8');
  const encryptedMetadata = { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(currentId) };

  const encrypt = (payload: Payload): Payload => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', currentKey, iv);
    // The key id is authenticated with the data, so a payload cannot be relabelled.
    cipher.setAAD(currentAad);
    const body = Buffer.concat([cipher.update(PayloadMessage.encode(payload).finish()), cipher.final()]);
    return {
      metadata: { ...encryptedMetadata },
      data: Buffer.concat([iv, body, cipher.getAuthTag()]),
    };
  };

  const decrypt = (payload: Payload): Payload => {
    if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
    const kid = text(payload.metadata?.[KEY_ID_METADATA]) ?? '';
    const key = keys.get(kid);
    if (!key) throw new Error(`payload encrypted with key id "${kid}", which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`);
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) throw new Error('encrypted payload is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(kid, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    const decoded = PayloadMessage.decode(plain);
    return { metadata: { ...decoded.metadata }, data: decoded.data };
  };

  return {
    async encode(payloads) {
      return payloads.map(encrypt);
    },
    async decode(payloads) {
      return payloads.map(decrypt);
    },
  };
}

/** The data converter of every Client, Worker and replay of this service. */
export function codecDataConverter(codec: PayloadCodec): { payloadCodecs: PayloadCodec[] } {
  return { payloadCodecs: [codec] };
}
