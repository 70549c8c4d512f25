/**
 * What one partner reference names (issue 45): a request-to-pay (`collection`), a transfer
 * (`disbursement`) or a refund of a request-to-pay (`refund`). MoMo's refund is a resource of the
 * disbursement product: it takes that product's token and credentials and its lines are on the
 * disbursement statement (src/rail/partner-rail.ts productOfResource), but it has its own paths and
 * its own status. The engine keeps it on `rail_references.product`, `rail_answers.product` and
 * `late_answers.product`.
 */
export type RailResource = 'collection' | 'disbursement' | 'refund';
