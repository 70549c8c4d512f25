import type { PartnerCall, PartnerCallKind, PartnerCallOutcome } from '../domain/partner-health';
import type { PartnerName } from '../domain/rail-routes';
import { RailUnavailable, type PartnerRail, type RailRequest, type RailResource, type RailStatus, type RailSubmitResult } from './partner-rail';

/**
 * One partner's rail, every call measured (issue 46): how it ended, its HTTP status when there was
 * one, and how long it took, handed to `sink` (src/persistence/partner/partner-call-store.ts
 * PartnerCallLog, which writes `partner_calls` in batches). The call itself is unchanged: its answer
 * or its error goes back to the caller as it came, and a sink that throws is ignored.
 */

export interface PartnerCallSink {
  record(call: PartnerCall): void;
}

/** What a submission's answer says of the partner. */
export function outcomeOfSubmit(result: RailSubmitResult): PartnerCallOutcome {
  if (result.kind !== 'refused') return 'answered';
  return result.retryElsewhere ? 'refused_elsewhere' : 'refused_final';
}

/**
 * What a failed call says of the partner: never reached (RailUnavailable.notReached), a 5xx, a
 * timeout (no complete answer in time: src/rail/momo-http.ts says `timeout:`), or something else (a
 * bad answer, a 4xx we did not expect, our credentials refused: RailMisconfigured).
 */
export function outcomeOfError(error: unknown): PartnerCallOutcome {
  if (!(error instanceof RailUnavailable)) return 'other_error';
  if (error.notReached) return 'not_reached';
  if (error.status !== undefined && error.status >= 500) return 'server_error';
  if (error.status === undefined && /\btimeout\b/i.test(error.message)) return 'timeout';
  return 'other_error';
}

function statusOf(error: unknown): number | null {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : null;
}

export class MeasuredRail implements PartnerRail {
  constructor(
    private readonly partner: PartnerName,
    private readonly inner: PartnerRail,
    private readonly sink: PartnerCallSink,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  submit(resource: RailResource, request: RailRequest): Promise<RailSubmitResult> {
    return this.measure('submit', () => this.inner.submit(resource, request), outcomeOfSubmit);
  }

  status(resource: RailResource, referenceId: string): Promise<RailStatus> {
    return this.measure('status', () => this.inner.status(resource, referenceId), () => 'answered');
  }

  private async measure<T>(call: PartnerCallKind, work: () => Promise<T>, outcomeOf: (answer: T) => PartnerCallOutcome): Promise<T> {
    const at = new Date();
    const started = this.clock();
    try {
      const answer = await work();
      this.keep({ partner: this.partner, call, outcome: outcomeOf(answer), httpStatus: null, latencyMs: this.clock() - started, at });
      return answer;
    } catch (error) {
      this.keep({ partner: this.partner, call, outcome: outcomeOfError(error), httpStatus: statusOf(error), latencyMs: this.clock() - started, at });
      throw error;
    }
  }

  private keep(call: PartnerCall): void {
    try {
      this.sink.record(call);
    } catch {
      // Measuring never fails a call.
    }
  }
}
