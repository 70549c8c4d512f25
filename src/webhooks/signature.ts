import { createHmac } from 'node:crypto';
import type { SignatureScheme } from '../domain/webhook-endpoint';
import { randomBase62 } from '../support/new-id';

/**
 * A new endpoint signing secret; shown to the merchant once. `whsec_` and 32 base62 characters: the
 * characters are also valid base64 (24 bytes), so the same secret is a Standard Webhooks secret
 * (`whsec_<base64 key>`) for endpoints that choose that scheme.
 */
export function newSigningSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

/** SPEC 6.2: lowercase hex HMAC-SHA256 of `timestamp + "." + body`, keyed with the secret. */
export function signPayload(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(timestamp).update('.').update(body).digest('hex');
}

/** The X-Service-Signature value: one `v1=` element per secret, current secret first. */
export function signatureHeader(secrets: readonly string[], timestamp: string, body: string): string {
  return secrets.map((s) => `v1=${signPayload(s, timestamp, body)}`).join(',');
}

/** The Standard Webhooks key of a secret: the bytes its base64 part (after `whsec_`) encodes. */
function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/**
 * Standard Webhooks (standardwebhooks.com, "Signature scheme"): base64 HMAC-SHA256 of
 * `msg_id.timestamp.body`, keyed with the secret's decoded bytes; the webhook-signature value lists
 * `v1,<base64>` per secret, space-separated, current secret first.
 */
export function standardWebhooksSignature(secrets: readonly string[], messageId: string, timestamp: string, body: string): string {
  return secrets
    .map((s) => `v1,${createHmac('sha256', standardWebhooksKey(s)).update(`${messageId}.${timestamp}.`).update(body).digest('base64')}`)
    .join(' ');
}

/** What a delivery's identity contributes to its signature headers. */
export interface SignedMessage {
  /** The event id: stable across retries and replays, the receiver's deduplication key (webhook-id). */
  eventId: string;
  /** Unix seconds of the send. */
  timestamp: string;
  body: string;
}

/**
 * The signature headers of one send under the endpoint's scheme (issue 49). `service_v1`:
 * X-Service-Signature and X-Service-Timestamp (SPEC 6.2). `standard_webhooks`: webhook-id,
 * webhook-timestamp and webhook-signature, the only signature headers sent, so a Standard Webhooks
 * library verifies the request as it is. Every promised secret signs (rotation overlap) in both.
 */
export function signatureHeaders(scheme: SignatureScheme, secrets: readonly string[], message: SignedMessage): Record<string, string> {
  if (scheme === 'standard_webhooks') {
    return {
      'webhook-id': message.eventId,
      'webhook-timestamp': message.timestamp,
      'webhook-signature': standardWebhooksSignature(secrets, message.eventId, message.timestamp, message.body),
    };
  }
  return { 'x-service-signature': signatureHeader(secrets, message.timestamp, message.body), 'x-service-timestamp': message.timestamp };
}
