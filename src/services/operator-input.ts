import type { ChargeResolutionRequest } from '../domain/charge-resolution';
import type { SettleLateAction } from '../domain/payment-review';

/* What an operator command of src/cli/operator-actions.ts is given besides its context (here, so the bulk services need not import the commands). */

/** Who and why, from --operator and --reason; the batch id of a bulk run. */
export interface OperatorInput {
  operator: string;
  reason: string;
  /** `charges resolve` only. */
  resolution?: Pick<ChargeResolutionRequest, 'as' | 'failure_class' | 'evidence'>;
  /** `payments settle-late` only: how the late money is settled. */
  settleLate?: SettleLateAction;
  /** `charges resolve` and `payments settle-late`: the partner's evidence (a transaction id, a statement line). */
  evidence?: string;
}

/** What the command acts on: one id, or a bulk selection (a dry run without `yes`). */
export interface OperatorTarget {
  id?: string | undefined;
  /** A Temporal list query: the dry run's selection, or with `idsFile` the re-check of each id. */
  query?: string | undefined;
  merchantId?: string | undefined;
  yes: boolean;
  /** `--yes --token opsel_…`: the dry run's set. */
  token?: string | undefined;
  /** `--yes --ids-file PATH` (with `query`): exactly the ids in the file. */
  idsFile?: string | undefined;
  /** Dry run: `--save-ids PATH` writes the set's ids there. */
  saveIds?: string | undefined;
  /** `--expect N`: the number of live payments in the set (required for live money in bulk). */
  expect?: number | undefined;
}
