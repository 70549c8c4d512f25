import { createHmac } from 'node:crypto';
import { randomBase62 } from '../support/new-id';

/** A new endpoint signing secret; shown to the merchant once. */
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
