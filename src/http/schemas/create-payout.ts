import { PAYOUT_CHANNELS } from '../../domain/payout';
import type { PayoutRequest } from '../../services/payout-draft';
import { compile, METADATA_SCHEMA } from '../validate';

/**
 * POST /v1/payouts. Unknown fields are refused; amounts are positive integers below 2^53 (the total
 * debit is checked against that too, by the service); mobile money needs `momo_network_id` and no
 * `bank_code`, bank the reverse. Codes are then checked against the reference lists.
 */
export const validateCreatePayout = compile<PayoutRequest>({
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency', 'channel', 'recipient', 'reference'],
  properties: {
    amount: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    channel: { type: 'string', enum: [...PAYOUT_CHANNELS] },
    momo_network_id: { type: 'string', format: 'uuid' },
    bank_code: { type: 'string', pattern: '^[A-Z0-9-]{1,20}$' },
    recipient: {
      type: 'object',
      additionalProperties: false,
      required: ['identifier', 'name'],
      properties: {
        identifier: { type: 'string', pattern: '^[0-9A-Za-z +-]{3,64}$' },
        name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
      },
    },
    reference: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
    description: { type: 'string', maxLength: 500 },
    // At most 50 keys, keys ≤ 40 and string values ≤ 500 characters, 5 levels (http/metadata-limits.ts).
    metadata: METADATA_SCHEMA,
  },
  allOf: [
    {
      if: { properties: { channel: { const: 'mobile_money' } }, required: ['channel'] },
      then: { required: ['momo_network_id'], properties: { bank_code: false } },
    },
    {
      if: { properties: { channel: { const: 'bank' } }, required: ['channel'] },
      then: { required: ['bank_code'], properties: { momo_network_id: false } },
    },
  ],
});
