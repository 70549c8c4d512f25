/**
 * Every HTTP request a chaos run sends (the load's and the prober's), with what answered and when,
 * so the checks can say whether the API kept its promise during faults: 503 with Retry-After while
 * a dependency is down, never a 500, never a hang past its deadline.
 */
export interface RequestRecord {
  /** Date.now() when sent. */
  at: number;
  source: 'load' | 'probe';
  method: string;
  /** The path without its query, ids replaced by `{id}`. */
  route: string;
  port: number;
  /** The HTTP status, or 0 when no answer came (connection refused or reset, client timeout). */
  status: number;
  /** The error code of the answer's envelope, when it had one. */
  code: string | null;
  retryAfter: string | null;
  latencyMs: number;
  /** Why no answer came (status 0). */
  error: string | null;
  /** The faults in force while it was on its way (their numbers in the run): when sent or when answered. */
  faults: number[];
  /** Their kinds. */
  faultKinds: string[];
}

/**
 * The longest an API answer may take: the API's own bounds are a 5 s wait for a database connection
 * and a 20 s statement timeout (src/persistence/orm.ts API_DB_TIMEOUTS), a 10 s Temporal request
 * deadline (TEMPORAL_REQUEST_DEADLINE_MS); past 30 s the request hung.
 */
export const ANSWER_DEADLINE_MS = 30_000;

/** Documented 5xx answers that are not outages: a charge whose partner did not answer in time. */
const ACCEPTED_5XX_CODES = new Set(['partner_timeout', 'live_unavailable']);

export type Verdict = { ok: true; excused?: string } | { ok: false; why: string };

/** Whether one answer keeps the API's promise. */
export function judge(r: RequestRecord): Verdict {
  // The proxy's 502 for a request in flight in the API process that was killed under it: a load
  // balancer cannot answer otherwise (the request may have been acted on, so it is not retried).
  if (r.status === 502 && r.code === 'bad_gateway' && r.faultKinds.includes('kill_api')) return { ok: true, excused: 'in flight when its API process was killed (502 from the proxy)' };
  if (r.status === 0) return { ok: false, why: `no answer (${r.error ?? 'unknown'}) after ${r.latencyMs} ms` };
  if (r.latencyMs > ANSWER_DEADLINE_MS) return { ok: false, why: `answered ${r.status} after ${r.latencyMs} ms (past the ${ANSWER_DEADLINE_MS} ms deadline)` };
  if (r.status === 503) return r.retryAfter ? { ok: true } : { ok: false, why: '503 without Retry-After' };
  if (r.status >= 500 && !(r.code && ACCEPTED_5XX_CODES.has(r.code))) return { ok: false, why: `${r.status}${r.code ? ` ${r.code}` : ''}` };
  return { ok: true };
}

export class RequestLog {
  readonly records: RequestRecord[] = [];
  /** The faults in force now (number → kind), set by the injector. */
  private readonly active = new Map<number, string>();

  faultStarted(n: number, kind: string): void {
    this.active.set(n, kind);
  }

  faultEnded(n: number): void {
    this.active.delete(n);
  }

  activeFaults(): { faults: number[]; faultKinds: string[] } {
    return { faults: [...this.active.keys()], faultKinds: [...new Set(this.active.values())] };
  }

  add(record: RequestRecord): void {
    this.records.push(record);
  }

  count(source?: RequestRecord['source']): number {
    return source ? this.records.filter((r) => r.source === source).length : this.records.length;
  }
}

/** A path with its ids (`txn_…`, `po_…`, …) replaced, for grouping. */
export function routeOf(path: string): string {
  return path.split('?')[0]!.replace(/\/[a-z]{2,4}_[A-Za-z0-9]{10,}/g, '/{id}');
}
