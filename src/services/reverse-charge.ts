import { chargeJson } from '../domain/charge';
import { Charge } from '../persistence/entities';
import { rowToRecord } from '../persistence/charge-mapping';
import type { Orm } from '../persistence/orm';
import { reversalStartOptions } from '../temporal/charge-start';
import type { TemporalHandle } from '../temporal/connection';
import type { chargeReversalWorkflow } from '../../workflows/charge-reversal';

/**
 * Operator action: reverse a succeeded charge. Runs `chargeReversalWorkflow` as a new run under the
 * charge's own workflow id, and waits for it. Answers the charge object, serialised.
 */
export async function reverseCharge(orm: Orm, temporal: TemporalHandle, taskQueue: string, chargeId: string): Promise<string> {
  const row = await orm.em.fork().findOne(Charge, { id: chargeId });
  if (!row) throw new Error(`charge ${chargeId} does not exist`);
  const charge = rowToRecord(row);
  if (charge.status !== 'succeeded') throw new Error(`charge ${chargeId} is ${charge.status}; only a succeeded charge can be reversed`);
  const handle = await temporal.client.workflow.start<typeof chargeReversalWorkflow>(
    'chargeReversalWorkflow',
    reversalStartOptions(charge, taskQueue, new Date().toISOString()),
  );
  return chargeJson(await handle.result());
}
