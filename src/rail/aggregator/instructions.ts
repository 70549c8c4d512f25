import type { PaymentInstructions } from '../partner-rail';
import { fromAggregatorAmount } from './amount';

/**
 * A bank-transfer charge's `meta.authorization` (protocol.ts BankTransferAuthorization) as the
 * engine's PaymentInstructions, or undefined when it is absent or cannot be read whole: an account
 * and a bank, an amount in the charge's currency, an expiry instant. Half-read instructions are never
 * shown to a customer who would pay by them.
 */
export function instructionsOf(authorization: unknown, currency: string): PaymentInstructions | undefined {
  if (typeof authorization !== 'object' || authorization === null) return undefined;
  const a = authorization as Record<string, unknown>;
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
  const accountNumber = text(a.transfer_account);
  const bankName = text(a.transfer_bank);
  const amount = fromAggregatorAmount(a.transfer_amount, currency);
  const expiry = text(a.account_expiration);
  // An instant with its zone only: a local time without one (Flutterwave's own form) would be read in the worker's zone.
  const expiresAt = expiry && /(Z|[+-]\d{2}:?\d{2})$/i.test(expiry) ? new Date(expiry) : undefined;
  if (!accountNumber || !bankName || amount === undefined || amount <= 0 || !expiresAt || Number.isNaN(expiresAt.getTime())) return undefined;
  return {
    kind: 'bank_transfer',
    bankName,
    accountNumber,
    accountName: text(a.transfer_account_name) ?? null,
    amount,
    currency,
    expiresAt: expiresAt.toISOString(),
  };
}

/** The instructions in a charge answer or a charge object: the envelope's `meta.authorization`, else the charge's own `meta.authorization`. */
export function chargeInstructions(envelope: { meta?: unknown; data?: unknown } | undefined, currency: string): PaymentInstructions | undefined {
  const fromMeta = (holder: unknown) => (typeof holder === 'object' && holder !== null ? (holder as { authorization?: unknown }).authorization : undefined);
  const data = envelope?.data;
  const dataMeta = typeof data === 'object' && data !== null ? (data as { meta?: unknown }).meta : undefined;
  return instructionsOf(fromMeta(envelope?.meta), currency) ?? instructionsOf(fromMeta(dataMeta), currency);
}
