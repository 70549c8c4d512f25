import { randomBytes } from 'node:crypto';
import { ID_PREFIX, type IdKind } from '../domain/ids';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 string (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + randomBase62(24);
}
