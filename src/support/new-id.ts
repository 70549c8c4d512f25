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

/** Where newId draws its 24 characters from: crypto (randomBase62) unless the simulator set a seeded source. */
let idSource: (length: number) => string = randomBase62;

/**
 * Makes every newId() of this process draw from `next` (the deterministic simulation, src/simulation/
 * engine.ts, sets a seeded source so that the same seed mints the same ids); `resetIdSource` goes back
 * to crypto. Only ids: secrets and keys never come from it.
 */
export function setIdSource(next: (length: number) => string): void {
  idSource = next;
}

export function resetIdSource(): void {
  idSource = randomBase62;
}

export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + idSource(24);
}
