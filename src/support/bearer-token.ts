import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether `given` (a token a caller sent) is `expected`, in time that depends on neither: both are
 * hashed to 32 bytes first, so neither the length nor any prefix of the secret shows in the timing.
 */
export function secretEquals(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected)) && given.length === expected.length;
}

/** Whether an `Authorization` header is `Bearer <token>` (scheme case-insensitive, RFC 7235). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^bearer +(\S+) *$/i.exec(header ?? '');
  return secretEquals(match?.[1] ?? '', token);
}
