import { ENVIRONMENTS, type Environment } from './environment';
import { isIdOf } from './ids';
import type { RestartRequest } from './operator-action';
import { partnerWaitCarryProblem, type PartnerWaitCarry } from './partner-wait';

/**
 * Input of a settlement batch workflow (workflows/settlement.ts), started by the settlement run (one
 * per merchant, environment and currency with a positive available balance) or by
 * `settlements run`. Workflow id = `settlementId` (`stl_` + 24 base62 characters); the run sets the
 * search attributes MerchantId, Environment and Currency at the start.
 *
 * - `outcome`: the sandbox switch (`settlements run --outcome failed`): `'failed'` fails the payment
 *   step; null pays it. Ignored on live (no live rail: a live batch fails with `partner_unavailable`).
 * - `runId`: the settlement run that started the batch (kept on the batch row), null when none.
 */
export interface SettlementStart {
  settlementId: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  outcome: 'failed' | null;
  runId: string | null;
  /**
   * Set only by the settlement workflow itself when a live batch's wait for the partner continues as
   * new (issue 43, PARTNER_WAIT_CONTINUES_PATCH): the wait's state. The new run finds its batch as
   * written (the sweep moves nothing twice) and resumes asking the partner, never submitting as a
   * first submission nor after the first run's submit window.
   */
  resume?: PartnerWaitCarry;
  /** Set only by `payments restart stl_…` (issue 43): the operator's fields, audited by the run first (settlement.restart). */
  restart?: RestartRequest;
}

/** Workflow type of the settlement batch workflow (workflows/settlement.ts). */
export const SETTLEMENT_WORKFLOW_TYPE = 'settlementWorkflow';

/** Error type of a settlement workflow refused at its start (malformed input, or a workflow id other than the settlement id). */
export const SETTLEMENT_INPUT_REFUSED = 'SettlementInputRefused';

const CURRENCY = /^[A-Z]{3}$/;

/** Why `input` is not a SettlementStart, or null when it is one (an absent `outcome` or `runId` reads as null). */
export function settlementStartProblem(input: unknown): string | null {
  if (typeof input !== 'object' || input === null) return 'the input is not an object';
  const start = input as Partial<Record<keyof SettlementStart, unknown>>;
  if (typeof start.settlementId !== 'string' || !isIdOf('settlement', start.settlementId)) return 'settlementId must be "stl_" followed by 24 letters and digits';
  if (typeof start.merchantId !== 'string' || !isIdOf('merchant', start.merchantId)) return 'merchantId must be a merchant id ("mer_…")';
  if (!(ENVIRONMENTS as readonly unknown[]).includes(start.environment)) return 'environment must be sandbox or live';
  if (typeof start.currency !== 'string' || !CURRENCY.test(start.currency)) return 'currency must be an ISO 4217 code';
  if (start.outcome != null && start.outcome !== 'failed') return 'outcome must be "failed" or null';
  if (start.runId != null && typeof start.runId !== 'string') return 'runId must be a string or null';
  if (start.resume !== undefined) return partnerWaitCarryProblem(start.resume);
  return null;
}
