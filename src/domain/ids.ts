/** Identifier prefixes of INTERFACE.md. Generation lives outside the domain (it needs randomness). */
export const ID_PREFIX = {
  charge: 'txn_',
  event: 'evt_',
  merchant: 'mer_',
  apiKey: 'key_',
  request: 'req_',
  payout: 'po_',
  refund: 're_',
  settlement: 'stl_',
  dispute: 'dp_',
  webhookEndpoint: 'we_',
  delivery: 'dlv_',
  /** A webhook recovery (issue 49): every failed or skipped event of an endpoint since a time, sent again; its workflow id. */
  webhookRecovery: 'whr_',
  audit: 'aud_',
  operatorBatch: 'opb_',
  /** A bulk dry run's selection (src/persistence/operators/bulk-selection-store.ts): the token `--yes --token` takes. */
  operatorSelection: 'opsel_',
  notification: 'ntf_',
  portalUser: 'usr_',
  partnerStatement: 'pst_',
  reconciliationBreak: 'brk_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Characters after the prefix: 24 base62 characters (support/new-id.ts, webhooks/delivery-id.ts). */
export const ID_BODY = /^[0-9A-Za-z]{24}$/;

/**
 * Whether `text` has the shape of an id of `kind`. An id that fails this was never issued, so the
 * API answers it as not found without a query (and a crafted one never reaches SQL).
 */
export function isIdOf(kind: IdKind, text: string): boolean {
  const prefix = ID_PREFIX[kind];
  return text.startsWith(prefix) && ID_BODY.test(text.slice(prefix.length));
}

const ISSUED_PREFIXES = Object.values(ID_PREFIX);

/** Whether `text` has the shape of an id of any kind (a path's `:id` before its route looks at the kind). */
export function isIssuedIdShape(text: string): boolean {
  const prefix = ISSUED_PREFIXES.find((p) => text.startsWith(p));
  return prefix !== undefined && ID_BODY.test(text.slice(prefix.length));
}
