import { createHash, randomBytes } from 'node:crypto';

/** A hosted-checkout token: 32 random bytes (256 bits), base64url (43 characters). */
export function newCheckoutToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The shape of a token; anything else is not looked up. */
export function isCheckoutTokenShape(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** What is stored and looked up: the token's sha256, hex. */
export function checkoutTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
