import { ApplicationFailure, condition, log, setHandler } from '@temporalio/workflow';
import { EVIDENCE_NOT_ACCEPTED, type DisputeEvidenceRequest, type DisputeOutcome, type DisputeState } from '../src/domain/dispute';
import { deadlinePassed, evidenceRefusal, evidenceRequestRefusal, sandboxDisputeDecision } from '../src/domain/dispute-evidence';
import { submitEvidenceUpdate } from './dispute-messages';
import type { TimerDesk } from './payout-timers';

export interface EvidenceDesk {
  /**
   * Waits, on a durable timer until `deadline` (evidence_due_by; raced by `advance`), for
   * `submitEvidence`. Answers the sandbox decision on the evidence once it is recorded
   * (`under_review`), or null when the deadline passed without evidence (then no more is accepted).
   */
  collect(deadline: string, timers: TimerDesk): Promise<DisputeOutcome | null>;
  /** No evidence is accepted any more (the dispute is resolved); a request still waiting is refused. */
  close(): void;
}

/**
 * Registers the `submitEvidence` update of one dispute workflow. Its validator refuses a malformed
 * request (no text, an empty or too long one) and a dispute that does not accept evidence: already
 * submitted, past its deadline (or the deadline advanced in the sandbox), or resolved; nothing is
 * written then. A request that arrives before the run has read its dispute is accepted and refused
 * once read if the dispute does not take it. The handler records the evidence through `record`
 * (`under_review`) and answers the dispute's state.
 */
export function evidenceDesk(disputeId: string, current: () => DisputeState | undefined, record: (request: DisputeEvidenceRequest) => Promise<DisputeState>): EvidenceDesk {
  let waiting = false;
  let closed = false;
  let deadlineFired: 'timer' | 'advanced' | null = null;
  let text: string | undefined;

  const refusal = (): string | null => {
    const dispute = current();
    if (text !== undefined) return `Evidence for dispute ${disputeId} was already submitted and is under review: evidence is accepted once.`;
    if (deadlineFired === 'advanced') return `The evidence deadline of dispute ${disputeId} was fired early (sandbox advance): evidence is no longer accepted and the dispute is lost.`;
    if (deadlineFired && dispute?.evidenceDueBy) return deadlinePassed(disputeId, dispute.evidenceDueBy);
    if (dispute) return evidenceRefusal(dispute, Date.now());
    if (closed) return `Dispute ${disputeId} does not accept evidence any more.`;
    return null;
  };

  setHandler(
    submitEvidenceUpdate,
    async (request) => {
      if (!waiting && !closed) await condition(() => waiting || closed);
      const why = refusal() ?? (waiting ? null : `Dispute ${disputeId} does not accept evidence any more.`);
      if (why) throw ApplicationFailure.create({ type: EVIDENCE_NOT_ACCEPTED, message: why, nonRetryable: true });
      text = request.text;
      log.info('dispute evidence received', { disputeId, length: request.text.length });
      return record({ disputeId, text: request.text, at: new Date().toISOString() });
    },
    {
      validator: (request) => {
        const why = evidenceRequestRefusal(request) ?? refusal();
        if (why) throw new Error(why);
      },
    },
  );

  return {
    async collect(deadline, timers) {
      waiting = true;
      const ms = Math.max(1, Date.parse(deadline) - Date.now());
      // Evidence that arrived in the same workflow task as the timer is still in time (`until` wins).
      const outcome = await timers.wait(ms, 'evidence deadline: no evidence by evidence_due_by, then lost', () => text !== undefined);
      waiting = false;
      if (text === undefined) {
        deadlineFired = outcome === 'advanced' ? 'advanced' : 'timer';
        closed = true;
        return null;
      }
      const evidence = text;
      await condition(() => current()?.status === 'under_review');
      return sandboxDisputeDecision(evidence);
    },
    close() {
      closed = true;
    },
  };
}
