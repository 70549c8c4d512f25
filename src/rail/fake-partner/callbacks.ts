import { request } from 'undici';
import { maskUrl, type SentCallback } from './recording';

export const CALLBACK_TIMEOUT_MS = 5_000;

export type FakeLog = (message: string, fields?: Record<string, unknown>) => void;

/**
 * Sends the partner's callbacks: one HTTP PUT of the transaction's status to the X-Callback-Url, as
 * MoMo does. A callback that fails (refused, timed out, not 2xx) is logged and never retried: a
 * callback may never come. `close` aborts those in flight.
 */
export class CallbackSender {
  readonly sent: SentCallback[] = [];
  private readonly inFlight = new Set<AbortController>();

  constructor(private readonly log: FakeLog) {}

  async send(product: string, referenceId: string, url: string, body: unknown): Promise<void> {
    const abort = new AbortController();
    this.inFlight.add(abort);
    const record: Omit<SentCallback, 'outcome'> = { at: Date.now(), product, referenceId, url: maskUrl(url), body };
    try {
      const answer = await request(url, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.any([abort.signal, AbortSignal.timeout(CALLBACK_TIMEOUT_MS)]),
        headersTimeout: CALLBACK_TIMEOUT_MS,
        bodyTimeout: CALLBACK_TIMEOUT_MS,
      });
      await answer.body.dump();
      this.sent.push({ ...record, outcome: { status: answer.statusCode } });
      if (answer.statusCode < 200 || answer.statusCode >= 300) {
        this.log('fake partner: callback answered with an error status; not retried', { product, referenceId, url: record.url, status: answer.statusCode });
      }
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      this.sent.push({ ...record, outcome: { error: message } });
      this.log('fake partner: callback could not be delivered; not retried', { product, referenceId, url: record.url, error: message });
    } finally {
      this.inFlight.delete(abort);
    }
  }

  close(): void {
    for (const abort of this.inFlight) abort.abort();
  }
}
