import { toChargeView, type ChargeView } from '../domain/charge';
import { SA } from '../domain/search-attributes';
import { Charge } from '../persistence/entities';
import type { Orm } from '../persistence/orm';
import type { TemporalHandle } from '../temporal/connection';
import type { chargeReversalWorkflow } from '../../workflows/charge-reversal';

/**
 * Operator action: reverse a succeeded charge. Runs `chargeReversalWorkflow` as a new run under the
 * charge's own workflow id, and waits for it.
 */
export async function reverseCharge(orm: Orm, temporal: TemporalHandle, taskQueue: string, chargeId: string): Promise<ChargeView> {
  const charge = await orm.em.fork().findOne(Charge, { id: chargeId });
  if (!charge) throw new Error(`charge ${chargeId} does not exist`);
  if (charge.status !== 'succeeded') throw new Error(`charge ${chargeId} is ${charge.status}; only a succeeded charge can be reversed`);
  const handle = await temporal.client.workflow.start<typeof chargeReversalWorkflow>('chargeReversalWorkflow', {
    workflowId: chargeId,
    taskQueue,
    args: [{ chargeId, requestedAt: new Date().toISOString() }],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    staticSummary: `operator reversal of ${chargeId}`,
    typedSearchAttributes: [
      { key: SA.PaymentStatus, value: charge.status },
      { key: SA.MerchantId, value: charge.merchantId },
      { key: SA.Environment, value: charge.environment },
      { key: SA.Channel, value: charge.channel },
      { key: SA.Currency, value: charge.currency },
      { key: SA.Amount, value: charge.amount },
    ],
  });
  return toChargeView(await handle.result());
}
