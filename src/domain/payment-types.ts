import { ID_PREFIX } from './ids';

/** The payment types whose workflows may be marked NeedsAttention, by id prefix (INTERFACE.md). */
export type PaymentType = 'charge' | 'payout' | 'refund' | 'settlement' | 'dispute';
const PAYMENT_TYPES: readonly PaymentType[] = ['charge', 'payout', 'refund', 'settlement', 'dispute'];

/** The payment type of a workflow id (= resource id), or null for another kind of workflow. */
export function paymentTypeOf(id: string): PaymentType | null {
  return PAYMENT_TYPES.find((type) => id.startsWith(ID_PREFIX[type])) ?? null;
}
