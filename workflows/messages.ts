import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ChargeRecord } from '../src/domain/charge';

/** The synchronous answer of POST /v1/charges, produced by the workflow's acceptance step. */
export type ChargeAcceptance =
  | { kind: 'accepted'; charge: ChargeRecord }
  /** sandbox `indeterminate`: the partner did not answer; the charge stays unresolved until expiry. */
  | { kind: 'partner_timeout'; charge: ChargeRecord };

/** Update sent together with the start (update-with-start); its id is fixed, so retries dedupe. */
export const acceptChargeUpdate = defineUpdate<ChargeAcceptance>('acceptCharge');
export const ACCEPT_UPDATE_ID = 'accept';

/** Current record as the workflow last wrote it (for operators: `temporal workflow query`). */
export const chargeStateQuery = defineQuery<ChargeRecord | undefined>('chargeState');
