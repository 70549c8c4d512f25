import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes on every payment workflow (INTERFACE.md), so an operator can run, e.g.
 *   temporal workflow list --query "PaymentStatus='pending' AND Environment='sandbox'"
 */
export const SA = {
  PaymentStatus: defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD),
  MerchantId: defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD),
  Environment: defineSearchAttributeKey('Environment', SearchAttributeType.KEYWORD),
  Channel: defineSearchAttributeKey('Channel', SearchAttributeType.KEYWORD),
  Currency: defineSearchAttributeKey('Currency', SearchAttributeType.KEYWORD),
  Amount: defineSearchAttributeKey('Amount', SearchAttributeType.INT),
  FailureClass: defineSearchAttributeKey('FailureClass', SearchAttributeType.KEYWORD),
  /** A payment an operator should look at (INTERFACE.md); on a charge: a database step gave up. */
  NeedsAttention: defineSearchAttributeKey('NeedsAttention', SearchAttributeType.BOOL),
  /** Why, in a few words (src/domain/attention-reason.ts); unset while NeedsAttention is false. */
  NeedsAttentionReason: defineSearchAttributeKey('NeedsAttentionReason', SearchAttributeType.KEYWORD),
} as const;

/** Name and type of each, for registration on a server (`--search-attribute Name=Type`). */
export const SEARCH_ATTRIBUTE_DEFINITIONS: ReadonlyArray<{ name: string; type: 'Keyword' | 'Int' | 'Bool' }> = [
  { name: 'PaymentStatus', type: 'Keyword' },
  { name: 'MerchantId', type: 'Keyword' },
  { name: 'Environment', type: 'Keyword' },
  { name: 'Channel', type: 'Keyword' },
  { name: 'Currency', type: 'Keyword' },
  { name: 'Amount', type: 'Int' },
  { name: 'FailureClass', type: 'Keyword' },
  { name: 'NeedsAttention', type: 'Bool' },
  { name: 'NeedsAttentionReason', type: 'Keyword' },
];

/** What a charge's search attributes say; the same list at workflow start and at every transition. */
export function chargeSearchAttributePairs(charge: {
  status: string;
  merchantId: string;
  environment: string;
  channel: string;
  currency: string;
  amount: number;
  failureClass: string | null;
}) {
  return [
    { key: SA.PaymentStatus, value: charge.status },
    { key: SA.MerchantId, value: charge.merchantId },
    { key: SA.Environment, value: charge.environment },
    { key: SA.Channel, value: charge.channel },
    { key: SA.Currency, value: charge.currency },
    { key: SA.Amount, value: charge.amount },
    ...(charge.failureClass ? [{ key: SA.FailureClass, value: charge.failureClass }] : []),
  ];
}
