import { maskIdentifier } from './customer';

/**
 * A merchant's settlement account (`merchants set ID --settlement-bank CODE --settlement-account
 * NUMBER`): a bank of the reference list (GET /v1/reference/banks) and an account number. The number
 * is stored sealed (AES-256-GCM under SECRETS_KEY, src/support/secret-box.ts) next to its masked form
 * (its last four digits), which is all that is ever shown: in the command's output, in settlement
 * objects (`destination.account_masked`) and in logs. Only a live rail's payment activity would open it.
 */

/** Shortest and longest account number accepted, in digits (local account numbers: NUBAN 10, Ghana 13–16, Kenya up to 16). */
export const ACCOUNT_NUMBER_DIGITS = { min: 6, max: 20 } as const;

/**
 * The account number as stored (digits only: spaces and dashes between groups dropped), or null when
 * it is not 6 to 20 digits. Error messages never repeat the number.
 */
export function parseSettlementAccountNumber(text: string): string | null {
  const trimmed = text.trim();
  if (!/^[0-9]+([ -][0-9]+)*$/.test(trimmed)) return null;
  const digits = trimmed.replace(/[ -]/g, '');
  return digits.length >= ACCOUNT_NUMBER_DIGITS.min && digits.length <= ACCOUNT_NUMBER_DIGITS.max ? digits : null;
}

/** A bank code as the reference list spells it (upper case); null when it cannot be one. */
export function normalizeBankCode(text: string): string | null {
  const code = text.trim().toUpperCase();
  return /^[A-Z0-9][A-Z0-9-]{0,31}$/.test(code) ? code : null;
}

/** The only form of an account number shown anywhere: its last four digits. */
export function maskAccountNumber(accountNumber: string): string {
  return maskIdentifier(accountNumber);
}

/** An account number as stored: sealed (opened only where money is paid to it) and masked (shown). */
export interface SealedAccountNumber {
  sealed: string;
  masked: string;
}

/** Seals a parsed account number (parseSettlementAccountNumber) with the secrets box; keeps only its masked form in the clear. */
export function sealAccountNumber(box: { seal(plaintext: string): string }, accountNumber: string): SealedAccountNumber {
  return { sealed: box.seal(accountNumber), masked: maskAccountNumber(accountNumber) };
}
