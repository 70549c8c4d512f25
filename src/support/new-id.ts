import { randomBytes, randomUUID } from 'node:crypto';
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

/** Where newId draws its 24 characters from: crypto (randomBase62) unless the simulator set a seeded source. */
/** `stream`: what the characters are for (an id kind, a reference prefix, `uuid`): a seeded source draws each from a stream of its own. */
let idSource: (length: number, stream: string) => string = randomBase62;

/**
 * Makes every newId() of this process draw from `next` (the deterministic simulation, src/simulation/
 * engine.ts, sets a seeded source so that the same seed mints the same ids); `resetIdSource` goes back
 * to crypto. Only ids: secrets and keys never come from it.
 */
export function setIdSource(next: (length: number, stream: string) => string): void {
  idSource = next;
}

export function resetIdSource(): void {
  idSource = randomBase62;
}

export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + idSource(24, kind);
}

/**
 * A random UUID (version 4), as a partner reference needs (MoMo's X-Reference-Id): crypto's, or in
 * the simulation one built from the seeded id source (its 32 hex digits, the version and variant set).
 */
export function newUuid(): string {
  if (idSource === randomBase62) return randomUUID();
  const hex = [...idSource(32, 'uuid')].map((c) => (c.charCodeAt(0) % 16).toString(16));
  hex[12] = '4';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A payment's own reference (`PAY-…`, `PO-…`: 16 upper-case characters), from the same source as ids (seeded in the simulation). */
export function newPaymentReference(prefix: 'PAY' | 'PO'): string {
  return `${prefix}-${idSource(16, prefix).toUpperCase()}`;
}
