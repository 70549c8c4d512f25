import { maskIdentifier } from './customer';

/**
 * A merchant's settlement account (`merchants set ID --settlement-bank CODE --settlement-account
 * NUMBER`): a bank of the reference list (GET /v1/reference/banks) and an account number. The number
 * leaves the database only masked (its last four digits): in the command's output, in settlement
 * objects (`destination.account_masked`) and in logs.
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
