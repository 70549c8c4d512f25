import type { FifoRequest } from './fifo-receiver';

/** An event the FIFO endpoint should get: its id, its sequence and when it was created (epoch ms). */
export interface FifoEvent {
  id: string;
  sequence: number;
  createdAtMs: number;
}

/** What one phase's requests say about order, loss and time. */
export interface FifoFigures {
  events: number;
  /** Events answered 2xx at least once. */
  delivered: number;
  /** Events never answered 2xx. */
  lost: number;
  requests: number;
  /** Requests answered 503 (each retried). */
  failed: number;
  /** 2xx answers beyond an event's first: at-least-once repeats (a worker killed after the send, before its record). */
  duplicates: number;
  /**
   * Requests out of order: one whose sequence is below a sequence already sent (gone backwards; a
   * repeat of the latest event is not), or one sent while an earlier event was not yet answered 2xx.
   */
  violations: number;
  /** The first out-of-order requests, for the report (`#index seq S`). */
  firstViolations: string[];
  badSignatures: number;
  /** First 2xx per event, epoch ms, ascending. */
  times: number[];
  /** Event created → its first 2xx, ms, ascending. */
  latencies: number[];
  /** The events' created_at, epoch ms, ascending (the rate they were offered at). */
  created: number[];
}

/** The figures of `requests` (in the order the receiver got them) for `events`. */
export function fifoFigures(events: readonly FifoEvent[], requests: readonly FifoRequest[]): FifoFigures {
  const bySequence = [...events].sort((a, b) => a.sequence - b.sequence);
  const created = new Map(events.map((e) => [e.id, e.createdAtMs]));
  const answered = new Set<number>();
  const firstOk = new Map<string, number>();
  let next = 0; // index in bySequence of the first event not answered 2xx yet
  let highest = -Infinity;
  let violations = 0;
  let duplicates = 0;
  const firstViolations: string[] = [];
  for (const [i, r] of requests.entries()) {
    const backwards = r.sequence < highest;
    const early = next < bySequence.length && r.sequence > bySequence[next]!.sequence;
    if (backwards || early) {
      violations++;
      if (firstViolations.length < 5) firstViolations.push(`#${i} seq ${r.sequence}${backwards ? ` after ${highest}` : ` before ${bySequence[next]!.sequence} was answered`}`);
    }
    highest = Math.max(highest, r.sequence);
    if (r.status < 200 || r.status >= 300) continue;
    if (firstOk.has(r.eventId)) duplicates++;
    else firstOk.set(r.eventId, r.answeredAtMs);
    answered.add(r.sequence);
    while (next < bySequence.length && answered.has(bySequence[next]!.sequence)) next++;
  }
  const mine = events.filter((e) => firstOk.has(e.id));
  return {
    events: events.length,
    delivered: mine.length,
    lost: events.length - mine.length,
    requests: requests.length,
    failed: requests.filter((r) => r.status === 503).length,
    duplicates,
    violations,
    firstViolations,
    badSignatures: requests.filter((r) => !r.signatureOk).length,
    times: mine.map((e) => firstOk.get(e.id)!).sort((a, b) => a - b),
    latencies: mine.map((e) => firstOk.get(e.id)! - created.get(e.id)!).sort((a, b) => a - b),
    created: events.map((e) => e.createdAtMs).sort((a, b) => a - b),
  };
}

/** Events per second from the first timestamp to the last (2xx times, or created times). */
export const rateOf = (times: readonly number[]): number => (times.length > 1 ? ((times.length - 1) * 1000) / (times[times.length - 1]! - times[0]!) : NaN);
