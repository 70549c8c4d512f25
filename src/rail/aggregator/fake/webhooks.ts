import { request } from 'undici';
import type { FakeLog } from '../../fake-partner/callbacks';
import { WEBHOOK_HASH_HEADER } from '../protocol';
import type { FakeAggregatorTransaction } from './books';
import { maskUrl, type SentWebhook } from './recording';
import { webhookBody } from './views';

export const WEBHOOK_TIMEOUT_MS = 5_000;

/**
 * Sends the aggregator's webhooks: one HTTP POST of the event (views.ts webhookBody) to the account's
 * webhook URL (or a transfer's own `callback_url`), with `verif-hash` set to the secret hash, as
 * Flutterwave does. No URL: nothing is sent (logged). A webhook that fails (refused, timed out, not
 * 2xx) is logged and never retried: a webhook may never come. `close` aborts those in flight.
 */
export class WebhookSender {
  readonly sent: SentWebhook[] = [];
  private readonly inFlight = new Set<AbortController>();

  constructor(
    private readonly hash: string,
    private readonly webhookUrl: () => string | null,
    private readonly log: FakeLog,
  ) {}

  async send(transaction: FakeAggregatorTransaction): Promise<void> {
    const url = transaction.webhookUrl ?? this.webhookUrl();
    const body = webhookBody(transaction);
    const { resource, referenceId } = transaction;
    if (!url) {
      this.log('fake aggregator: no webhook URL set; webhook not sent', { event: body.event, resource, referenceId });
      return;
    }
    const abort = new AbortController();
    this.inFlight.add(abort);
    const record: Omit<SentWebhook, 'outcome'> = { at: Date.now(), event: body.event, resource, referenceId, url: maskUrl(url), body };
    try {
      const answer = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [WEBHOOK_HASH_HEADER]: this.hash },
        body: JSON.stringify(body),
        signal: AbortSignal.any([abort.signal, AbortSignal.timeout(WEBHOOK_TIMEOUT_MS)]),
        headersTimeout: WEBHOOK_TIMEOUT_MS,
        bodyTimeout: WEBHOOK_TIMEOUT_MS,
      });
      await answer.body.dump();
      this.sent.push({ ...record, outcome: { status: answer.statusCode } });
      if (answer.statusCode < 200 || answer.statusCode >= 300) {
        this.log('fake aggregator: webhook answered with an error status; not retried', { event: body.event, referenceId, url: record.url, status: answer.statusCode });
      }
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      this.sent.push({ ...record, outcome: { error: message } });
      this.log('fake aggregator: webhook could not be delivered; not retried', { event: body.event, referenceId, url: record.url, error: message });
    } finally {
      this.inFlight.delete(abort);
    }
  }

  close(): void {
    for (const abort of this.inFlight) abort.abort();
  }
}
