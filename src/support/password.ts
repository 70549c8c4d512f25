import { randomBytes } from 'node:crypto';
import { dictionary } from '@zxcvbn-ts/language-common';
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

/**
 * The common and breached passwords shipped with the project (no network at run time): the
 * `passwords-common` dictionary of @zxcvbn-ts/language-common (about 49,000 of the most used
 * passwords of public breach corpora, lower-cased), built into a set on first use.
 */
let common: Set<string> | undefined;
const commonPasswords = (): Set<string> => (common ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())));

/** Whether `password` is a common one: itself, with digits or symbols around it ("Password2024!"), or one repeated ("qwertyqwerty"). */
export function isCommonPassword(password: string): boolean {
  const lower = password.toLowerCase();
  const list = commonPasswords();
  if (list.has(lower)) return true;
  const core = lower.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
  if (core.length >= 4 && list.has(core)) return true;
  const repeated = /^(.{1,32}?)\1+$/u.exec(lower);
  return repeated !== null && (repeated[1]!.length < 4 || list.has(repeated[1]!));
}

/**
 * Why a new password is refused, or null (docs/security.md "Merchant portal"): at least
 * MIN_PASSWORD_LENGTH characters, at most MAX_PASSWORD_LENGTH, not a common or breached one
 * (isCommonPassword), and, with the user's email, neither its local part nor containing it (a local
 * part under four characters only when equal). Every place a password is set calls it: the CLI
 * (`users create`, `merchants create --email`), the portal's password change and reset; generated
 * passwords (20 base62 characters) pass.
 */
export function passwordProblem(password: string, email?: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `the password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  if (isCommonPassword(password)) return 'the password is too common (it is on a list of passwords known from breaches): choose another';
  const local = email?.slice(0, Math.max(0, email.lastIndexOf('@'))).trim().toLowerCase() ?? '';
  const lower = password.toLowerCase();
  if (local && (lower === local || (local.length >= 4 && lower.includes(local)))) return 'the password must not contain your email address';
  return null;
}
