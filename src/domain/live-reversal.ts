/**
 * Live reversals (issue 43): `charges reverse` and `payouts reverse` change only our ledger (a charge's
 * money back to the payer, a payout's back to the merchant's balance); neither asks the partner to
 * move money back. For the ledger to follow the partner's books, a live reversal would need the
 * partner's word that the money went back, and the partner's protocol has none: no refund or
 * reversal call, no REVERSED status, and a SUCCESSFUL request-to-pay or transfer is final at the
 * partner (a later FAILED for it is a contradiction, late money or a statement break, not a
 * reversal). So nothing in the partner's records can show it, and a live reversal is refused
 * whatever evidence an operator gives (docs/partner-rail.md, "Reversals in live"). Sandbox
 * reversals are unchanged.
 */
export function liveReversalRefusal(kind: 'charge' | 'payout', id: string): string {
  const what =
    kind === 'charge'
      ? `reversing it would credit the payer in our books while the partner still holds the payment as SUCCESSFUL (live refunds do not reach the partner either)`
      : `reversing it would credit the merchant's balance while the recipient keeps the money`;
  return (
    `live ${kind} ${id} cannot be reversed: the partner's protocol has no reversal or refund and no REVERSED status, so nothing in its records can show the money went back; ${what}. ` +
    `Nothing was changed. Raise it with the partner; a status the partner changes afterwards shows in its statement as a reconciliation break (reconcile breaks)`
  );
}
