import { EVENT_TYPES } from '../../domain/event-types';
import { MAX_TIMEOUT_SECONDS, SIGNATURE_SCHEMES } from '../../domain/webhook-endpoint';
import { MAX_IN_FLIGHT_LIMIT, MAX_PER_SECOND_LIMIT } from '../../domain/webhook-throttle';
import { DELIVERY_ORDERS } from '../../domain/webhook-fifo';
import { ApiError } from '../../domain/errors';
import { createdRange, INSTANT_PATTERN } from '../../services/list-filters';
import type { CreateEndpointRequest, UpdateEndpointRequest } from '../../services/webhook-endpoints';
import { check, compile, refuseControlCharacters } from '../validate';
import { eventTypesOf, eventTypesSchema } from './event-type-filter';

export interface ListQuery {
  limit?: string;
  cursor?: string;
  status?: string;
  /** Made an array by eventTypesOf before the schema reads it. */
  event_type?: string[];
  created_after?: string;
  created_before?: string;
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
  // Issue 49: `unordered` (default) or `fifo`, one event at a time in sequence order (src/domain/webhook-fifo.ts).
  delivery_order: { type: 'string', enum: [...DELIVERY_ORDERS] },
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

/** POST /v1/webhook-endpoints/{id}/skip body (issue 49, FIFO). */
export interface SkipEventRequest {
  sequence: number;
}

/** POST /v1/webhook-endpoints/{id}/skip: the event sequence of a delivery held in the endpoint's FIFO queue. */
export const validateSkipEvent = compile<SkipEventRequest>({
  type: 'object',
  additionalProperties: false,
  required: ['sequence'],
  properties: {
    sequence: {
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'The `sequence` of the event whose delivery waits in the endpoint\'s FIFO queue (the `X-Service-Sequence` header of its attempts).',
    },
  },
});

/**
 * List queries of endpoints and deliveries: `limit` 1–100, opaque `cursor`; deliveries also by
 * `status`, `event_type` (one or more event types, the parameter repeated for several:
 * `event_type=a&event_type=b`; a comma-separated list is not read, event-type-filter.ts) and
 * `created_after` / `created_before` (the charge list's names and rules, src/services/list-filters.ts:
 * strict ISO 8601, both exclusive, after earlier than before). The endpoint list refuses the
 * deliveries' filters (DELIVERY_FILTERS). Read with parseDeliveryListQuery / parseEndpointListQuery.
 */
export const validateListQuery = compile<ListQuery>({
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'string', pattern: '^([1-9]|[1-9][0-9]|100)$' },
    cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed', 'skipped'] },
    event_type: eventTypesSchema(),
    created_after: { type: 'string', pattern: INSTANT_PATTERN },
    created_before: { type: 'string', pattern: INSTANT_PATTERN },
  },
});

/** The filters of validateListQuery that only the deliveries list takes. */
export const DELIVERY_FILTERS = ['status', 'event_type', 'created_after', 'created_before'] as const;

export interface DeliveryListQuery {
  limit?: string;
  cursor?: string;
  status?: string;
  eventTypes?: string[];
  /** As sent (validated ISO 8601), for PostgreSQL to read with its offset. */
  createdAfter?: string;
  createdBefore?: string;
}

/**
 * GET /v1/webhook-endpoints/{id}/deliveries: the query checked, event types and the created range
 * first (their own messages: which type, which bound), then the schema; anything wrong is 400
 * `invalid_request` naming the parameter, before any query.
 */
export function parseDeliveryListQuery(query: Record<string, unknown>): DeliveryListQuery {
  const copy = { ...query };
  const eventTypes = eventTypesOf(copy, 'event_type');
  refuseControlCharacters(copy);
  const text = (name: string) => (typeof copy[name] === 'string' ? (copy[name] as string) : undefined);
  const range = createdRange({ created_after: text('created_after'), created_before: text('created_before') });
  const q = check(validateListQuery, copy);
  return { limit: q.limit, cursor: q.cursor, status: q.status, ...(eventTypes ? { eventTypes } : {}), ...range };
}

/** GET /v1/webhook-endpoints: `limit` and `cursor`; a filter of the deliveries is 400 naming it. */
export function parseEndpointListQuery(query: Record<string, unknown>): Pick<ListQuery, 'limit' | 'cursor'> {
  refuseControlCharacters(query);
  const filter = DELIVERY_FILTERS.find((name) => query[name] !== undefined);
  if (filter) throw new ApiError('invalid_request', `${filter} is not a filter of this list.`, { param: filter });
  return check(validateListQuery, query);
}
