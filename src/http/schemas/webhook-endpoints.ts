import { EVENT_TYPES } from '../../domain/event-types';
import { MAX_TIMEOUT_SECONDS } from '../../domain/webhook-endpoint';
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

/** POST /v1/webhook-endpoints/{id}/recover body (issue 49). */
export interface RecoverEndpointRequest {
  since: string;
}

/** POST /v1/webhook-endpoints/{id}/recover: `since`, an RFC 3339 instant; its bounds (not in the future, within the events' window) are the route's 422. */
export const validateRecoverEndpoint = compile<RecoverEndpointRequest>({
  type: 'object',
  additionalProperties: false,
  required: ['since'],
  properties: {
    since: {
      type: 'string',
      format: 'date-time',
      description:
        'Resend every event created at or after this RFC 3339 instant (kept to the millisecond, answered in UTC) whose last delivery to the endpoint failed or was skipped. Not in the future and not before the events\' walkable window (EVENTS_WALK_WINDOW, 90 days by default): else 422 recover_since_out_of_range with param since (a rule of the time of the request, which a schema cannot state), and nothing is recovered.',
    },
  },
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
