import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';

/**
 * Portal passwords (docs/security.md "Merchant portal"): argon2id through the maintained `argon2`
 * library (its prebuilt binary), with the library's defaults (64 MiB, 3 passes, 4 lanes; OWASP's
 * floor is 19 MiB and 2 passes). A password is never logged or stored; only the PHC string is.
 */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

/** A hash no password matches in practice: verified against for an unknown email, so timing does not tell. */
let dummyHash: Promise<string> | undefined;

/** Whether `password` matches `hash`; with `hash` null (no such user), verifies against a dummy hash and answers false. */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  const against = hash ?? (await (dummyHash ??= hashPassword(randomBytes(32).toString('base64url'))));
  let ok: boolean;
  try {
    ok = await argon2.verify(against, password);
  } catch {
    ok = false;
  }
  return hash !== null && ok;
}

/** Why a new password is refused, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `the password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}
