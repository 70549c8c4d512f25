import { ApplicationFailure, condition, log, setHandler } from '@temporalio/workflow';
import { liveEvidenceRefusal, RESOLVED_FAILURE_CLASS, resolutionRequestRefusal } from '../src/domain/charge-resolution';
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
  /** The charge waits for its partner's answer: `resolveCharge` is accepted from now on. */
  open(): void;
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
  let resolution: ChargeResolution | undefined;

  setHandler(
    resolveChargeUpdate,
    async (request) => {
      const before = current();
      const evidence = request.evidence?.trim();
      resolution = {
        ...(request.as === 'succeeded' ? { to: 'succeeded' as const, failureClass: null } : { to: 'failed' as const, failureClass: request.failure_class ?? RESOLVED_FAILURE_CLASS }),
        ...(evidence ? { evidence } : {}),
      };
      const operator = operatorOf(request);
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

  return {
    open: () => void (waiting = true),
    close: () => void (waiting = false),
    requested: () => resolution,
  };
}
