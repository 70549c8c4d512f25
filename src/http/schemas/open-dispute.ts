import { DISPUTE_REASONS, type OpenDisputeRequest } from '../../domain/dispute';
import { compile } from '../validate';

export type { OpenDisputeRequest };

/**
 * POST /v1/sandbox/charges/{id}/disputes. Unknown fields are refused; `reason`, when given, one of
 * DISPUTE_REASONS (default `general`); `amount`, when given, a positive integer below 2^53 (default:
 * all that is still disputable). `{}` opens a dispute of everything left with reason `general`.
 */
export const validateOpenDispute = compile<OpenDisputeRequest>({
  type: 'object',
  additionalProperties: false,
  properties: {
    reason: { type: 'string', enum: [...DISPUTE_REASONS] },
    amount: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  },
});
