import { EVENT_TYPES } from '../../domain/event-types';

/**
 * The `webhooks` section (OpenAPI 3.1): one POST per event type, as activities/webhooks.ts
 * (deliveryHeaders) sends it and src/webhooks/signature.ts signs it (SPEC 6.1, 6.2).
 */
/**
 * The signature headers of each scheme (issue 49): an endpoint's `signature_scheme` decides which set
 * a delivery carries, so each is `required: false` here and its description says when it is sent.
 */
export const SIGNATURE_HEADERS = [
  { name: 'X-Service-Signature', description: 'Sent when the endpoint\'s `signature_scheme` is `service_v1` (the default). One or more comma-separated `v1=<lowercase hex>` elements, current secret first (two during a rotation overlap): HMAC-SHA256, keyed with the endpoint\'s signing secret, of `<X-Service-Timestamp>.<raw body bytes>`. Accept if any element matches, compared in constant time.', schema: { type: 'string', pattern: '^v1=[0-9a-f]{64}(,v1=[0-9a-f]{64})*$' } },
  { name: 'X-Service-Timestamp', description: 'Sent with X-Service-Signature (`service_v1`). Unix seconds, base 10, when the attempt was signed; part of the signed material. Reject a delivery more than 300 seconds from your clock.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  { name: 'webhook-id', description: 'Sent when the endpoint\'s `signature_scheme` is `standard_webhooks`: the event id (`evt_…`), the Standard Webhooks message id, stable across retries and replays.', schema: { type: 'string', pattern: '^evt_' } },
  { name: 'webhook-timestamp', description: 'Sent with webhook-id (`standard_webhooks`): Unix seconds when the attempt was signed.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  { name: 'webhook-signature', description: 'Sent with webhook-id (`standard_webhooks`): space-separated `v1,<base64>` elements, current secret first (more during a rotation overlap): base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body bytes>`, keyed with the base64-decoded part of the signing secret after `whsec_`. The Standard Webhooks libraries verify it with the secret as it is.', schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$' } },
].map((header) => ({ ...header, in: 'header', required: false }));

export const DELIVERY_HEADERS = [
  { name: 'X-Service-Event-Id', description: 'The event id (`evt_…`), stable across retries: the deduplication key.', schema: { type: 'string', pattern: '^evt_' } },
  { name: 'X-Service-Event-Type', description: 'The event type.', schema: { type: 'string' } },
  { name: 'X-Service-Delivery-Id', description: 'The delivery record (`dlv_…`).', schema: { type: 'string', pattern: '^dlv_' } },
  { name: 'X-Service-Sequence', description: 'The event\'s sequence, monotonic per merchant and environment; a gap means a lost event.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  { name: 'X-Service-Attempt', description: 'The attempt number, from 1.', schema: { type: 'string', pattern: '^[1-9][0-9]*$' } },
  { name: 'User-Agent', description: 'The sender.', schema: { const: 'payment-engine-webhooks/1' } },
].map((header) => ({ ...header, in: 'header', required: true }));

/** Every header a delivery may carry: the scheme's signature headers, then the ones always sent. */
export const WEBHOOK_REQUEST_HEADERS = [...SIGNATURE_HEADERS, ...DELIVERY_HEADERS];

export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map(({ type, description }) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace(/\./g, '_')}`,
          summary: type,
          description: `${description} Sent to every active endpoint subscribed to \`${type}\` (or to every type); at least once, retried on a non-2xx answer or a timeout (\`timeout_seconds\`), redirects not followed.`,
          tags: ['Webhooks'],
          parameters: WEBHOOK_REQUEST_HEADERS,
          requestBody: {
            required: true,
            description: 'The stored event, byte for byte as GET /v1/events serves it: verify the signature over these raw bytes before parsing.',
            content: { 'application/json': { schema: { allOf: [{ $ref: '#/components/schemas/Event' }, { type: 'object', properties: { type: { const: type } } }] } } },
          },
          responses: {
            '2XX': { description: 'Received: no more attempts.' },
            default: { description: 'Any other answer (3xx included) or none within timeout_seconds: retried later (`Retry-After` on 429/503 honoured); the endpoint is disabled after repeated failures.' },
          },
        },
      },
    ]),
  );
}
