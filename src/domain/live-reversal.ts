/**
 * Live payout reversals (issue 43). `payouts reverse` on a live payout would change only our ledger
 * (the payout's money back to the merchant's balance) while the recipient keeps the money: the
 * partner's protocol has no call that takes a transfer back and no REVERSED status, and a SUCCESSFUL
 * transfer is final at the partner (a later FAILED for it is a contradiction, late money or a
 * statement break, not a reversal). So nothing in the partner's records can show it, and a live
 * payout reversal is refused whatever evidence an operator gives (docs/partner-rail.md, "Reversals in
 * live"). A live CHARGE's reversal goes back through the partner as a refund since issue 45
 * (src/services/reverse-live-charge.ts). Sandbox reversals are unchanged.
 */
export function liveReversalRefusal(kind: 'payout', id: string): string {
  return (
    `live ${kind} ${id} cannot be reversed: the partner's protocol has no call that takes a transfer back and no REVERSED status, so nothing in its records can show the money went back; ` +
    `reversing it would credit the merchant's balance while the recipient keeps the money. ` +
    `Nothing was changed. Raise it with the partner; a status the partner changes afterwards shows in its statement as a reconciliation break (reconcile breaks)`
  );
}
