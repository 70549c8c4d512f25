import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS } from '../config';
import { chargeJson } from '../domain/charge';
import type { ChargeResolutionRequest, ChargeResolutionResult } from '../domain/charge-resolution';
import { rowToRecord } from '../persistence/charges/charge-mapping';
import { Charge } from '../persistence/entities';
import type { Orm } from '../persistence/orm';
import type { TemporalHandle } from '../temporal/connection';
import { resolveChargeUpdate } from '../../workflows/messages';
import { withTemporalDeadline } from './dependency-unavailable';
import { operatorError } from './operator-errors';

/**
 * Operator action (`charges resolve txn_… --as succeeded|failed --reason TEXT`): the partner's
 * answer for an indeterminate charge came another way (by phone). Sends the `resolveCharge` update,
 * which the workflow validates (an operator, a reason, a charge still waiting for its partner) and
 * answers once the outcome is written: ledger, event and webhook as for any outcome, NeedsAttention
 * cleared, one audit row. Answers the charge object, serialised. A live charge (issue 43): the
 * partner is asked at once and decides; the update is refused while it has no final answer, and the
 * object then carries `resolution` (the partner's word, `agreed`, a message for the operator).
 */
export async function resolveCharge(
  orm: Orm,
  temporal: TemporalHandle,
  chargeId: string,
  request: ChargeResolutionRequest,
  deadlineMs: number = DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS,
): Promise<string> {
  const row = await orm.em.fork().findOne(Charge, { id: chargeId });
  if (!row) throw new Error(`charge ${chargeId} does not exist`);
  const deadline = Date.now() + deadlineMs;
  let answer: ChargeResolutionResult;
  try {
    answer = await withTemporalDeadline(temporal, deadlineMs, () => temporal.client.workflow.getHandle(chargeId).executeUpdate(resolveChargeUpdate, { args: [request] }));
  } catch (error) {
    throw operatorError(chargeId, 'resolved', error, deadlineMs, deadline);
  }
  // The workflow answers the charge's state only (no customer data in history): the object is read back.
  const resolved = await orm.em.fork().findOne(Charge, { id: chargeId });
  const json = chargeJson(rowToRecord(resolved!));
  // A live charge (issue 43): the partner's word and whether the resolution agreed with it.
  if (!answer?.resolution) return json;
  return `${json.slice(0, -1)},"resolution":${JSON.stringify(answer.resolution)}}`;
}
