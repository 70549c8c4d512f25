import { request } from 'undici';
import { redactUrl } from './notification-config';
import { oneLine, SendFailure, type Sent, type SmsMessage, type SmsTransport } from './transport';

/** The whole exchange with the provider, answer included. */
const TIMEOUT_MS = 10_000;
/** Statuses worth asking again: the provider is busy, slow or down (or our token is refused: a configuration to fix, not a bad message). */
const RETRYABLE = new Set([401, 403, 408, 425, 429]);

/**
 * SMS through an HTTP provider (docs/notifications.md, "SMS provider contract"):
 *
 *   POST SMS_PROVIDER_URL
 *   Authorization: Bearer SMS_PROVIDER_TOKEN
 *   Content-Type: application/json
 *   Idempotency-Key: ntf_…            (the same on every attempt of one message)
 *   {"to": "+233241234567", "text": "…"}
 *
 * A 2xx is sent (a JSON `id` or `message_id` in the answer is kept as the provider's id); 5xx, 401,
 * 403, 408, 425, 429 and network errors are retried; any other 4xx fails the message for good.
 */
export function smsHttpTransport(providerUrl: string, token: string): SmsTransport {
  const shown = redactUrl(new URL(providerUrl));
  return {
    async send(message: SmsMessage): Promise<Sent> {
      let status: number;
      let body: string;
      try {
        const response = await request(providerUrl, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'idempotency-key': message.notificationId,
            'user-agent': 'payment-engine-notifications/1',
          },
          body: JSON.stringify({ to: message.to, text: message.text }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
          headersTimeout: TIMEOUT_MS,
          bodyTimeout: TIMEOUT_MS,
        });
        status = response.statusCode;
        body = (await response.body.text()).slice(0, 2000);
      } catch (error) {
        const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
        const code = e?.code ?? e?.cause?.code;
        throw new SendFailure(oneLine(`SMS provider ${shown}: ${code ? `${code} ` : ''}${e?.message ?? String(error)}`), false);
      }
      if (status >= 200 && status < 300) return { providerMessageId: providerId(body) ?? `HTTP ${status}` };
      const permanent = status >= 400 && status < 500 && !RETRYABLE.has(status);
      throw new SendFailure(oneLine(`SMS provider ${shown}: HTTP ${status}${body ? ` ${body.slice(0, 200)}` : ''}`), permanent);
    },
    close() {},
  };
}

function providerId(body: string): string | null {
  try {
    const json = JSON.parse(body) as { id?: unknown; message_id?: unknown };
    const id = json.id ?? json.message_id;
    return typeof id === 'string' || typeof id === 'number' ? oneLine(String(id)) : null;
  } catch {
    return null;
  }
}
