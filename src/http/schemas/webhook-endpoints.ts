import { EVENT_TYPES } from '../../domain/event-types';
import { MAX_TIMEOUT_SECONDS, SIGNATURE_SCHEMES } from '../../domain/webhook-endpoint';
import { MAX_IN_FLIGHT_LIMIT, MAX_PER_SECOND_LIMIT } from '../../domain/webhook-throttle';
import type { CreateEndpointRequest, UpdateEndpointRequest } from '../../services/webhook-endpoints';
import { compile } from '../validate';

export interface ListQuery {
  limit?: string;
  cursor?: string;
  status?: string;
}

const fields = {
  url: { type: 'string', minLength: 1, maxLength: 2048 },
  // Checked against GET /v1/event-types; empty means every type.
  subscribed_events: { type: 'array', uniqueItems: true, maxItems: EVENT_TYPES.length, items: { type: 'string', enum: EVENT_TYPES.map((t) => t.type) } },
  description: { type: ['string', 'null'], maxLength: 500 },
  timeout_seconds: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_SECONDS },
  // Issue 49: `service_v1` (default) or `standard_webhooks` (src/webhooks/signature.ts).
  signature_scheme: { type: 'string', enum: [...SIGNATURE_SCHEMES] },
  // Issue 49, the throttle (src/domain/webhook-throttle.ts): null (or absent) is no limit.
  max_per_second: { type: ['integer', 'null'], minimum: 1, maximum: MAX_PER_SECOND_LIMIT },
  max_in_flight: { type: ['integer', 'null'], minimum: 1, maximum: MAX_IN_FLIGHT_LIMIT },
};

/** POST /v1/webhook-endpoints; unknown fields are refused. */
export const validateCreateEndpoint = compile<CreateEndpointRequest>({
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: fields,
});

/** PATCH /v1/webhook-endpoints/{id}: any subset, `status` active (re-enable) or disabled (pause). */
export const validateUpdateEndpoint = compile<UpdateEndpointRequest>({
  type: 'object',
  additionalProperties: false,
  properties: { ...fields, status: { type: 'string', enum: ['active', 'disabled'] } },
});

/** List queries of endpoints and deliveries: `limit` 1–100, opaque `cursor`, deliveries by `status`. */
export const validateListQuery = compile<ListQuery>({
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'string', pattern: '^([1-9]|[1-9][0-9]|100)$' },
    cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed', 'skipped'] },
  },
});
