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
