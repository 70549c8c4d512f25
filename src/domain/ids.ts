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
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ID_BODY = /^[0-9A-Za-z]{16,40}$/;

export function hasIdShape(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIX[kind];
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}
