import { ApplicationFailure, condition, log, setHandler } from '@temporalio/workflow';
import {
  liveEvidenceRefusal,
  partnerWordOnResolution,
  RESOLVED_FAILURE_CLASS,
  resolutionRefusedNotFinal,
  resolutionRequestRefusal,
  type ChargeResolutionResult,
  type PartnerFinal,
} from '../src/domain/charge-resolution';
import { isTerminalStatus, type ChargeState } from '../src/domain/charge-state';
import type { FailureClass } from '../src/domain/failure-classes';
import { operatorOf } from '../src/domain/operator-action';
import { resolveChargeUpdate } from './messages';
import { auditOperatorAction } from './operator-audit';

/** An operator's resolution of an indeterminate charge, as the rail applies it. */
export interface ChargeResolution {
  to: 'succeeded' | 'failed';
  failureClass: FailureClass | null;
  /** The partner's evidence the operator gave (a live charge's resolution requires it). */
  evidence?: string;
}

export interface ResolutionDesk {
  /**
   * The charge waits for its partner's answer: `resolveCharge` is accepted from now on. `partner`
   * (issue 43, a live charge): the partner decides; a resolution is an operator's request to ask it
   * now (`refuse` when it has no final answer, `partnerSaid` before the charge ends as it says).
   */
  open(mode?: 'partner'): void;
  /** The partner, asked for the resolution waiting now, had no final answer: the update is refused; the reason (for the flag). */
  refuse(last: 'pending' | 'unknown' | 'no_answer' | 'differs'): string;
  /** The partner's final answer, told before the charge ends as it says. */
  partnerSaid(word: PartnerFinal): void;
  /** The wait ended (resolved or expired): later requests are refused. */
  close(): void;
  /** The resolution an operator sent, once one has. */
  requested(): ChargeResolution | undefined;
}

/**
 * Registers the `resolveCharge` update of one charge workflow (at the start, so an early request
 * is refused with a reason). The validator refuses a request without an operator or a reason, a
 * malformed one, a charge that is not waiting for its partner's answer, and a second resolution;
 * nothing is written then. The handler waits for the rail to apply the resolution (the terminal
 * transition: ledger, event, webhook, NeedsAttention cleared), writes the audit row, and answers the
 * charge's state.
 */
export function resolutionDesk(chargeId: string, current: () => ChargeState | undefined): ResolutionDesk {
  let waiting = false;
  let partnerDecides = false;
  let resolution: ChargeResolution | undefined;
  /** Issue 43: each resolution sent, numbered; the refusals the partner's answers gave, by number. */
  let sent = 0;
  const refusals = new Map<number, string>();
  let word: PartnerFinal | undefined;

  setHandler(
    resolveChargeUpdate,
    async (request): Promise<ChargeResolutionResult> => {
      const before = current();
      const evidence = request.evidence?.trim();
      resolution = {
        ...(request.as === 'succeeded' ? { to: 'succeeded' as const, failureClass: null } : { to: 'failed' as const, failureClass: request.failure_class ?? RESOLVED_FAILURE_CLASS }),
        ...(evidence ? { evidence } : {}),
      };
      const operator = operatorOf(request);
      if (partnerDecides) return askThePartner(request.as, before, operator, request.reason.trim(), request.batch_id);
      log.info('indeterminate charge resolved by an operator', { chargeId, as: request.as, operator });
      await condition(() => isTerminalStatus(current()?.status ?? 'pending'));
      const after = current()!;
      if (after.status !== resolution.to || (after.failureClass ?? null) !== resolution.failureClass) {
        const answered = `${after.status}${after.failureClass ? ` (${after.failureClass})` : ''}`;
        const message =
          after.environment === 'live'
            ? `charge ${chargeId}: the partner answered first: ${answered}. Its answer wins; the resolution was refused and changed nothing`
            : `charge ${chargeId} became ${answered} before the resolution was applied`;
        throw ApplicationFailure.create({ type: 'ChargeResolutionRefused', message, nonRetryable: true });
      }
      await auditOperatorAction({
        paymentId: chargeId,
        action: 'charge.resolve',
        operator,
        reason: request.reason.trim(),
        batchId: request.batch_id,
        before,
        after: resolution.evidence ? { ...after, evidence: resolution.evidence } : after,
      });
      return after;
    },
    {
      validator: (request) => {
        const why =
          resolutionRequestRefusal(request) ??
          (resolution ? `charge ${chargeId}: a resolution was already sent` : null) ??
          (current()?.environment === 'live' && !(request as { evidence?: unknown }).evidence ? liveEvidenceRefusal(chargeId) : null) ??
          (waiting ? null : `charge ${chargeId} is ${current()?.status ?? 'not loaded yet'}: only an indeterminate charge waiting for its partner's answer can be resolved`);
        if (why) throw new Error(why);
      },
    },
  );

  /**
   * Issue 43, a live charge: the operator's resolution asks the partner at once (the rail's wait
   * wakes). No final answer: refused, nothing written, the wait goes on. A final answer: the charge
   * ends as the partner says, and the answer and the audit row say whether the resolution agreed.
   */
  async function askThePartner(as: 'succeeded' | 'failed', before: ChargeState | undefined, operator: string, reason: string, batchId: string | undefined): Promise<ChargeResolutionResult> {
    const mine = ++sent;
    const evidence = resolution?.evidence;
    log.info('live charge: an operator asks to resolve it; asking the partner', { chargeId, as, operator });
    await condition(() => refusals.has(mine) || isTerminalStatus(current()?.status ?? 'pending'));
    const refusal = refusals.get(mine);
    if (refusal !== undefined) {
      refusals.delete(mine);
      throw ApplicationFailure.create({ type: 'ChargeResolutionRefused', message: refusal, nonRetryable: true });
    }
    const after = current()!;
    const said = word
      ? partnerWordOnResolution(chargeId, as, evidence, word, `${after.status}${after.failureClass ? ` (${after.failureClass})` : ''}`)
      : { agreed: false, partner: 'unknown', message: `charge ${chargeId} is ${after.status}` };
    await auditOperatorAction({
      paymentId: chargeId,
      action: 'charge.resolve',
      operator,
      reason,
      batchId,
      before,
      after: { ...after, evidence, requested: as, partner: said.partner, agreed: said.agreed },
    });
    return { ...after, resolution: said };
  }

  return {
    open: (mode) => {
      waiting = true;
      partnerDecides = mode === 'partner';
    },
    close: () => void (waiting = false),
    requested: () => resolution,
    refuse(last) {
      const as = resolution?.to ?? 'succeeded';
      const why = resolutionRefusedNotFinal(chargeId, as, last, new Date().toISOString());
      refusals.set(sent, why);
      resolution = undefined;
      return why;
    },
    partnerSaid: (final) => void (word = final),
  };
}
