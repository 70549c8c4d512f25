import { CHANNELS } from '../../domain/charge-status';
import type { ChargeRequest } from '../../services/charge-draft';
import { compile, METADATA_SCHEMA } from '../validate';

/** POST /v1/charges. Unknown fields are refused; amounts are positive integers below 2^53. */
export const validateCreateCharge = compile<ChargeRequest>({
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency', 'channel', 'customer'],
  properties: {
    amount: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    channel: { type: 'string', enum: [...CHANNELS] },
    momo_network_id: { type: 'string', format: 'uuid' },
    customer: {
      type: 'object',
      additionalProperties: false,
      required: ['identifier'],
      properties: {
        identifier: {
          type: 'string',
          minLength: 3,
          maxLength: 64,
          description:
            'The payer: a phone number (mobile money), an account (bank), a test card number (sandbox card). A live card charge refuses a card number here (400 invalid_request): the customer types the card into the hosted page at action.url; send your own identifier of the customer instead.',
        },
        name: { type: 'string', maxLength: 200 },
      },
    },
    reference: { type: 'string', minLength: 1, maxLength: 100 },
    description: { type: 'string', maxLength: 500 },
    // At most 50 keys, keys ≤ 40 and string values ≤ 500 characters, 5 levels (http/metadata-limits.ts).
    metadata: METADATA_SCHEMA,
    expires_at: {
      type: 'string',
      format: 'date-time',
      description:
        'When the charge expires if the customer has not paid: an RFC 3339 instant between 15 minutes and 24 hours after the create (by the server\'s clock, with a minute\'s allowance either way), answered in UTC. Default: 15 minutes after the create. Outside those bounds (a rule of the time of the request, which a schema cannot state): 422 expires_at_out_of_range with param expires_at, and nothing is created.',
    },
  },
  allOf: [
    {
      if: { properties: { channel: { const: 'mobile_money' } }, required: ['channel'] },
      then: { required: ['momo_network_id'] },
      else: { properties: { momo_network_id: false } },
    },
  ],
});
