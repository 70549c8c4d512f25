import { EVENT_TYPES } from '../../domain/event-types';
import { SIGNATURE_SCHEMES } from '../../domain/webhook-endpoint';
import { DELIVERY_ORDERS } from '../../domain/webhook-fifo';

/**
 * Response schemas of events, event types, webhook endpoints and deliveries, the reference lists and
 * the sandbox advance answer, written once from their serialisers (serialiseEvent, endpointJson,
 * deliveryJson, reference-store, sandbox-advance). Extra fields are allowed.
 */
const instant = { type: 'string', format: 'date-time' };
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const eventType = { type: 'string', enum: EVENT_TYPES.map((t) => t.type) };

export const EVENT = {
  type: 'object',
  required: ['id', 'object', 'type', 'resource_type', 'resource_id', 'sequence', 'created_at', 'data'],
  properties: {
    id: { type: 'string', pattern: '^evt_' },
    object: { const: 'event' },
    type: eventType,
    resource_type: { type: 'string', description: 'e.g. `transaction`, `payout`, `refund`, `settlement`, `dispute`.' },
    resource_id: { type: 'string' },
    transaction_id: { type: 'string', description: 'Present for transaction events.' },
    sequence: { type: 'integer', minimum: 1, description: 'Monotonic per merchant and environment; a gap means a lost event.' },
    created_at: instant,
    data: {
      description: 'The resource in the shape the API returns it.',
      anyOf: ['Charge', 'Payout', 'Refund', 'Settlement', 'Dispute'].map((name) => ({ $ref: `#/components/schemas/${name}` })),
    },
  },
};

export const EVENT_TYPE = {
  type: 'object',
  required: ['object', 'type', 'description'],
  properties: { object: { const: 'event_type' }, type: eventType, description: { type: 'string' } },
};

export const WEBHOOK_ENDPOINT = {
  type: 'object',
  required: ['id', 'object', 'url', 'description', 'subscribed_events', 'timeout_seconds', 'signature_scheme', 'max_per_second', 'max_in_flight', 'delivery_order', 'status', 'health', 'previous_secret_expires_at', 'livemode', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', pattern: '^we_' },
    object: { const: 'webhook_endpoint' },
    url: { type: 'string' },
    description: nullable({ type: 'string' }),
    subscribed_events: { type: 'array', items: eventType, description: 'Empty: every event type.' },
    timeout_seconds: { type: 'integer', minimum: 1 },
    signature_scheme: {
      type: 'string',
      enum: [...SIGNATURE_SCHEMES],
      description: 'How deliveries are signed: `service_v1` (X-Service-Signature) or `standard_webhooks` (webhook-id, webhook-timestamp, webhook-signature).',
    },
    max_per_second: nullable({ type: 'integer', minimum: 1, description: 'At most this many sends a second to the endpoint; the rest wait their turn (not failed attempts). Null: no limit.' }),
    max_in_flight: nullable({ type: 'integer', minimum: 1, description: 'At most this many sends under way to the endpoint at once. Null: no limit.' }),
    delivery_order: {
      type: 'string',
      enum: [...DELIVERY_ORDERS],
      description: '`unordered` (the default): each event is sent on its own, retries overlapping. `fifo`: one event at a time in sequence order; a failing one is retried and holds the ones behind it until it succeeds or is skipped (POST /v1/webhook-endpoints/{id}/skip).',
    },
    status: { type: 'string', enum: ['active', 'disabled'] },
    health: {
      type: 'object',
      required: ['consecutive_failures', 'last_failure_reason', 'last_failure_at', 'waiting_events', 'waiting_since'],
      properties: {
        consecutive_failures: { type: 'integer', minimum: 0 },
        last_failure_reason: nullable({ type: 'string' }),
        last_failure_at: nullable(instant),
        auto_disabled_at: instant,
        waiting_events: { type: 'integer', minimum: 0, description: 'Deliveries held in the endpoint\'s FIFO queue (`delivery_order: fifo`), not yet delivered or skipped. Always 0 for an endpoint that was never FIFO.' },
        waiting_since: nullable({ ...instant, description: 'When the oldest delivery waiting in the FIFO queue was written; null when none waits.' }),
      },
    },
    previous_secret_expires_at: nullable(instant),
    secret: { type: 'string', pattern: '^whsec_', description: 'Only in the answers of create and rotate-secret.' },
    livemode: { type: 'boolean' },
    created_at: instant,
    updated_at: instant,
  },
};

export const DELETED_WEBHOOK_ENDPOINT = {
  type: 'object',
  required: ['id', 'object', 'deleted'],
  properties: { id: { type: 'string', pattern: '^we_' }, object: { const: 'webhook_endpoint' }, deleted: { const: true } },
};

const ATTEMPT = {
  type: 'object',
  required: ['attempt', 'attempted_at', 'outcome', 'status_code', 'duration_ms', 'error', 'response_body'],
  properties: {
    attempt: { type: 'integer', minimum: 1 },
    attempted_at: instant,
    outcome: { type: 'string', enum: ['succeeded', 'failed'] },
    status_code: nullable({ type: 'integer' }),
    duration_ms: { type: 'integer', minimum: 0 },
    error: nullable({ type: 'string' }),
    response_body: nullable({ type: 'string', description: 'At most 1 KiB of the answer.' }),
  },
};

export const WEBHOOK_DELIVERY = {
  type: 'object',
  required: ['id', 'object', 'endpoint_id', 'event_id', 'event_type', 'status', 'attempt_count', 'next_attempt_at', 'last_status_code', 'last_error', 'replay_of', 'livemode', 'created_at', 'completed_at', 'fifo_sequence'],
  properties: {
    id: { type: 'string', pattern: '^dlv_' },
    fifo_sequence: nullable({ type: 'integer', minimum: 1, description: 'The event\'s sequence when the delivery was written for an endpoint with `delivery_order: fifo`: its place in the endpoint\'s queue, and what POST /v1/webhook-endpoints/{id}/skip takes. Null for every other delivery (replays and recoveries included).' }),
    object: { const: 'webhook_delivery' },
    endpoint_id: { type: 'string', pattern: '^we_' },
    event_id: { type: 'string', pattern: '^evt_' },
    event_type: eventType,
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed', 'skipped'] },
    attempt_count: { type: 'integer', minimum: 0 },
    next_attempt_at: nullable(instant),
    last_status_code: nullable({ type: 'integer' }),
    last_error: nullable({ type: 'string' }),
    replay_of: nullable({ type: 'string', pattern: '^dlv_' }),
    livemode: { type: 'boolean' },
    created_at: instant,
    completed_at: nullable(instant),
    attempts: { type: 'array', items: ATTEMPT, description: 'In GET /v1/webhook-deliveries/{id} (and the replay answer).' },
  },
};

const count = { type: 'integer', minimum: 0 };

/** A webhook recovery (issue 49; src/domain/webhook-recovery.ts recoveryJson). */
export const WEBHOOK_RECOVERY = {
  type: 'object',
  required: ['id', 'object', 'endpoint_id', 'since', 'status', 'progress', 'livemode', 'created_at', 'queued_at', 'completed_at'],
  properties: {
    id: { type: 'string', pattern: '^whr_' },
    object: { const: 'webhook_recovery' },
    endpoint_id: { type: 'string', pattern: '^we_' },
    since: { ...instant, description: 'As asked, to the millisecond, in UTC.' },
    status: { type: 'string', enum: ['running', 'completed'], description: '`running` while resends are being queued or any of them is still pending; `completed` once all are queued and none is pending.' },
    progress: {
      type: 'object',
      required: ['total', 'queued', 'succeeded', 'failed', 'skipped', 'pending'],
      properties: {
        total: { ...count, description: 'The events to resend: counted when the recovery was asked, exact (equal to `queued`) once every resend is queued.' },
        queued: { ...count, description: 'Resend deliveries created so far (each a replay delivery, `replay_of` the event\'s last delivery).' },
        succeeded: count,
        failed: { ...count, description: 'Resends whose retry schedule ran out.' },
        skipped: { ...count, description: 'Resends that found the endpoint disabled or deleted: nothing sent.' },
        pending: count,
      },
    },
    livemode: { type: 'boolean' },
    created_at: instant,
    queued_at: nullable({ ...instant, description: 'When the last resend was queued; null while queuing.' }),
    completed_at: nullable({ ...instant, description: 'When the recovery completed (its last resend ended, or it was queued with nothing pending); null while running.' }),
  },
};

const reference = (object: string, fields: Record<string, unknown>, key = 'code') => ({
  type: 'object',
  required: [key, 'object', ...Object.keys(fields)],
  properties: { [key]: { type: 'string' }, object: { const: object }, ...fields },
});

export const MOMO_NETWORK = reference('momo_network', { code: { type: 'string' }, name: { type: 'string' }, country: { type: 'string' }, currency: { type: 'string' } }, 'id');
export const BANK = reference('bank', { name: { type: 'string' }, country: { type: 'string' }, currency: { type: 'string' } });
export const CURRENCY = reference('currency', { name: { type: 'string' }, minor_units: { type: 'integer', minimum: 0 } });
export const COUNTRY = reference('country', { name: { type: 'string' }, currency: { type: 'string' } });

export const SANDBOX_ADVANCE = {
  type: 'object',
  required: ['id', 'fired', 'status'],
  properties: { id: { type: 'string' }, fired: { type: 'string', description: 'The summary of the timer that was fired.' }, status: { type: 'string', description: 'The resource\'s status after the timer fired.' } },
};
