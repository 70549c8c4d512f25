import { REFUND_REASONS } from '../../domain/refund';
import { compile, METADATA_SCHEMA } from '../validate';

import type { RefundRequest } from '../../domain/refund';

export type { RefundRequest };

/**
 * POST /v1/refunds. Unknown fields are refused; `charge` is a charge id (`txn_` and 24 letters and
 * digits); `amount`, when given, a positive integer below 2^53 (default: all still refundable).
 */
export const validateCreateRefund = compile<RefundRequest>({
  type: 'object',
  additionalProperties: false,
  required: ['charge'],
  properties: {
    charge: { type: 'string', pattern: '^txn_[0-9A-Za-z]{24}$' },
    amount: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    reason: { type: 'string', enum: [...REFUND_REASONS] },
    // At most 50 keys, keys ≤ 40 and string values ≤ 500 characters, 5 levels (http/metadata-limits.ts).
    metadata: METADATA_SCHEMA,
  },
});
