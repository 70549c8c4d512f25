import { createCipheriv, createDecipheriv } from 'node:crypto';
import { parseJson } from '../momo-status';

/**
 * A card charge's payload as Flutterwave's v3 API takes it (docs/aggregator.md, "Cards"): the JSON
 * payload encrypted with triple DES in ECB mode (PKCS#7 padding) under the account's 24-character
 * "encryption key" (AGGREGATOR_ENCRYPTION_KEY), as base64, sent as `{"client": "…"}`. The card
 * number and CVV exist in clear only in the process that encrypts or decrypts them, never on the
 * wire, in a log or in a recorded request.
 */

/** Flutterwave's encryption key: 24 characters, the three 8-byte DES keys. */
export const ENCRYPTION_KEY_LENGTH = 24;
const CIPHER = 'des-ede3';

function keyBytes(key: string): Buffer {
  const bytes = Buffer.from(key, 'utf8');
  if (bytes.length !== ENCRYPTION_KEY_LENGTH) throw new Error(`the encryption key must be ${ENCRYPTION_KEY_LENGTH} bytes`);
  return bytes;
}

/** The payload as the `client` field: base64(3DES-ECB(JSON)). */
export function encryptCardPayload(key: string, payload: unknown): string {
  const cipher = createCipheriv(CIPHER, keyBytes(key), null);
  return Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]).toString('base64');
}

/** The payload a `client` field carries, or undefined when it cannot be decrypted to JSON with this key. */
export function decryptCardPayload(key: string, client: unknown): unknown {
  if (typeof client !== 'string' || client === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(client)) return undefined;
  try {
    const decipher = createDecipheriv(CIPHER, keyBytes(key), null);
    const text = Buffer.concat([decipher.update(Buffer.from(client, 'base64')), decipher.final()]).toString('utf8');
    return parseJson(text);
  } catch {
    return undefined;
  }
}
