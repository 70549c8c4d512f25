import { waitingRefusal } from '../domain/charge-attention';
import type { RunState } from './bulk-query';

/** What a dry run's listing tells the policy about one payment (src/services/bulk-selection.ts ListedPayment). */
export interface ListedAttention {
  id: string;
  needs_attention: boolean;
  needs_attention_reason: string | null;
}

/**
 * What each operator command does in bulk (issue 31, finding 1): which runs it selects (the code adds
 * the run state to the list query; never left to the operator), and whether it moves live money, in
 * which case `--yes` needs `--expect N`, N the number of live payments in the dry run's set.
 *
 * Moves money (decides where a live payment's money goes, or sends it):
 * - charges resolve (credits the merchant or releases the hold), charges reverse (returns a charge);
 * - payouts approve (sends the payout), payouts reject (fails it, releases its reservation),
 *   payouts reverse (returns a paid-out amount);
 * - settlements retry (sends a new batch to the bank);
 * - payments settle-late (credits, returns or accepts late money);
 * - payments restart (a new run that submits a payout or refund to the partner).
 * Does not: charges retry (re-runs a stalled database step, deciding nothing), payments review-close
 * (closes a review that was looked into).
 */
export interface BulkPolicy {
  runs: RunState;
  movesMoney: boolean;
  /**
   * Why a listed payment is left out of the dry run's set (reported as `skipped`, never in the token),
   * or null to keep it: the action cannot apply to it whatever happens next.
   */
  skip?: (row: ListedAttention) => string | null;
  /** The command acts on payment reviews too (`review-<payment id>`, the workflow that holds late money and contradictions). */
  reviews?: boolean;
}

/**
 * `charges retry` retries a database step that gave up (NeedsAttentionReason `step gave up: …`).
 * Issue 43: `charges retry --query "NeedsAttention = true"` selected every live payment waiting for
 * the partner; those (`waiting: …`), an activity the worker still retries, a payout held for review,
 * a payment review or a failed batch are skipped with why. A flagged run with no reason (marked
 * before NeedsAttentionReason existed) is kept: its workflow's validator decides.
 */
export function retrySkip(row: ListedAttention): string | null {
  if (!row.needs_attention) return 'not waiting for an operator: nothing to retry';
  const reason = row.needs_attention_reason;
  if (reason === null || reason.startsWith('step gave up')) return null;
  return waitingRefusal(row.id, reason) ?? `NeedsAttentionReason "${reason}" is not a database step that gave up: nothing to retry (payments stuck says what it waits for)`;
}

export const BULK_POLICY: Readonly<Record<string, BulkPolicy>> = {
  'charges resolve': { runs: 'running', movesMoney: true },
  'charges retry': { runs: 'running', movesMoney: false, skip: retrySkip },
  // A reversal is a new run of the payment's completed workflow.
  'charges reverse': { runs: 'completed', movesMoney: true },
  'payouts approve': { runs: 'running', movesMoney: true },
  'payouts reject': { runs: 'running', movesMoney: true },
  'payouts reverse': { runs: 'completed', movesMoney: true },
  'settlements retry': { runs: 'running', movesMoney: true },
  // A restart is for a payout, refund or dispute whose workflow ended (terminated by hand, say) with its record open.
  'payments restart': { runs: 'ended', movesMoney: true },
  // Late money and contradictions are held by the payment's review (`review-<id>`, PaymentStatus under_review): selected too (issue 43).
  'payments settle-late': { runs: 'running', movesMoney: true, reviews: true },
  'payments review-close': { runs: 'running', movesMoney: false, reviews: true },
};

/** The commands whose bulk `--yes` needs `--expect N` for live payments (docs/operations.md). */
export const MONEY_MOVING_COMMANDS = Object.entries(BULK_POLICY)
  .filter(([, p]) => p.movesMoney)
  .map(([command]) => command);

export function bulkPolicyOf(command: string): BulkPolicy {
  const policy = BULK_POLICY[command];
  if (!policy) throw new Error(`"${command}" cannot run in bulk`);
  return policy;
}
