import type { Environment } from './environment';
import type { DeliveryOrder } from './webhook-fifo';

export const DEFAULT_TIMEOUT_SECONDS = 10;
export const MAX_TIMEOUT_SECONDS = 30;

export type EndpointStatus = 'active' | 'disabled';

/**
 * How an endpoint's deliveries are signed (issue 49): `service_v1`, the service's own scheme
 * (X-Service-Signature, SPEC 6.2), or `standard_webhooks` (webhook-id, webhook-timestamp,
 * webhook-signature), which the Standard Webhooks libraries verify unchanged.
 */
export const SIGNATURE_SCHEMES = ['service_v1', 'standard_webhooks'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];
export const DEFAULT_SIGNATURE_SCHEME: SignatureScheme = 'service_v1';

/** A webhook endpoint as stored, without its secrets. */
export interface WebhookEndpointRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  url: string;
  description: string | null;
  subscribedEvents: string[];
  timeoutSeconds: number;
  signatureScheme: SignatureScheme;
  /** Issue 49, the throttle: sends a second and sends under way at once; null is no limit. */
  maxPerSecond: number | null;
  maxInFlight: number | null;
  /** Issue 49: `fifo` sends one event at a time in sequence order (src/domain/webhook-fifo.ts). */
  deliveryOrder: DeliveryOrder;
  status: EndpointStatus;
  previousSecretExpiresAt: string | null;
  consecutiveFailures: number;
  lastFailureReason: string | null;
  lastFailureAt: string | null;
  autoDisabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Empty `subscribed_events` means every type. */
export function subscribes(subscribedEvents: readonly string[], eventType: string): boolean {
  return subscribedEvents.length === 0 || subscribedEvents.includes(eventType);
}

/** Deliveries held in order for an endpoint (issue 49, FIFO): how many, and since when the oldest was written. */
export interface EndpointWaiting {
  count: number;
  since: string | null;
}

export const NOTHING_WAITING: EndpointWaiting = { count: 0, since: null };

/**
 * The endpoint as the API returns it. `secret` is only passed on create and rotate; the
 * previous-secret expiry is shown while an overlap lasts. `waiting`: its FIFO queue (nothing for a
 * new endpoint).
 */
export function endpointJson(record: WebhookEndpointRecord, secret?: string, waiting: EndpointWaiting = NOTHING_WAITING): Record<string, unknown> {
  return {
    id: record.id,
    object: 'webhook_endpoint',
    url: record.url,
    description: record.description,
    subscribed_events: record.subscribedEvents,
    timeout_seconds: record.timeoutSeconds,
    signature_scheme: record.signatureScheme,
    max_per_second: record.maxPerSecond,
    max_in_flight: record.maxInFlight,
    delivery_order: record.deliveryOrder,
    status: record.status,
    health: {
      consecutive_failures: record.consecutiveFailures,
      last_failure_reason: record.lastFailureReason,
      last_failure_at: record.lastFailureAt,
      ...(record.autoDisabledAt ? { auto_disabled_at: record.autoDisabledAt } : {}),
      waiting_events: waiting.count,
      waiting_since: waiting.since,
    },
    previous_secret_expires_at: record.previousSecretExpiresAt,
    ...(secret !== undefined ? { secret } : {}),
    livemode: record.environment === 'live',
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
