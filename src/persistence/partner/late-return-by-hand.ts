import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { chargeJson } from '../../domain/charge';
import { lateReturnPaidTransfer } from '../../domain/late-answer-ledger';
import type { ChangeActor } from '../../domain/operator-action';
import { rowToRecord } from '../charges/charge-mapping';
import { Charge } from '../entities';
import type { Orm } from '../orm';
import { recordChange } from '../operators/change-audit';
import { writeStateChange } from '../state-change';

/** Why `payments settle-return` is refused (the return is not one that failed, the evidence is missing): exit 1, nothing changed. */
export class ReturnByHandRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReturnByHandRefusedError';
  }
}

export interface ReturnByHand {
  paymentId: string;
  /** The evidence of the return made by hand: the partner's (or bank's) transaction id, or its statement line. */
  evidence: string;
  at: string;
}

/**
 * `payments settle-return TXN_ID --evidence TEXT --reason TEXT --operator NAME` (issue 43, "a failed
 * or refused return has no way out"): the return transfer of a charge's late money failed or was
 * refused at the partner (`return_status` `failed`: the money sits in returns_in_transit), and an
 * operator returned it to the payer another way. In one transaction, under the charge's and the
 * late_answers row's locks: `return_status` `failed` → `succeeded`, the `late_return_paid` posting
 * (returns_in_transit → refund_clearing), `transaction.late_returned`, and the audit row
 * (`payment.settle_return`, the evidence in its state after). Refused for a return still followed at
 * the partner (requested, submitted: its review ends it on the partner's word), one already
 * returned, and a charge with no return.
 */
export async function settleReturnByHand(orm: Orm, actor: ChangeActor, input: ReturnByHand): Promise<{ paymentId: string; return_status: string; evidence: string; audit_id: string }> {
  return orm.em.fork().transactional(async (em: EntityManager) => {
    const row = await em.findOne(Charge, { id: input.paymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) throw new ReturnByHandRefusedError(`charge ${input.paymentId} does not exist`);
    const answers = await em.execute<Array<{ settled_action: string | null; return_status: string | null; return_reference_id: string | null; amount: string }>>(
      `select settled_action, return_status, return_reference_id::text as return_reference_id, amount::text as amount from late_answers where payment_id = ? for update`,
      [input.paymentId],
    );
    const answer = answers[0];
    if (!answer || answer.settled_action !== 'return') throw new ReturnByHandRefusedError(`charge ${input.paymentId} has no return of late money (settle-late --action return): nothing to settle`);
    if (answer.return_status === 'succeeded') throw new ReturnByHandRefusedError(`charge ${input.paymentId}: its return was already paid (return_status succeeded): nothing changed`);
    if (answer.return_status !== 'failed') {
      throw new ReturnByHandRefusedError(
        `charge ${input.paymentId}: its return transfer is ${answer.return_status ?? 'requested'} at the partner, and its payment review follows it to the partner's word: only a return that failed or was refused is settled by hand. Nothing changed`,
      );
    }
    const record = rowToRecord(row);
    await em.execute(`update late_answers set return_status = 'succeeded' where payment_id = ? and return_status = 'failed'`, [input.paymentId]);
    await writeStateChange(em, record, [lateReturnPaidTransfer({ id: record.id, amount: record.amount, totalDebit: record.amount })], input.at, {
      type: 'transaction.late_returned',
      resourceType: 'transaction',
      transactionId: record.id,
      dataJson: chargeJson(record),
    });
    const before = { return_status: 'failed', return_reference_id: answer.return_reference_id, amount: Number(answer.amount), currency: record.currency };
    const auditId = await recordChange(em, actor, {
      action: 'payment.settle_return',
      subjectId: record.id,
      merchantId: record.merchantId,
      environment: record.environment,
      before,
      after: { ...before, return_status: 'succeeded', returned_by: 'hand', evidence: input.evidence },
    });
    return { paymentId: record.id, return_status: 'succeeded', evidence: input.evidence, audit_id: auditId };
  });
}

/**
 * Of these charges, those whose return of late money is paid (by the partner or settled by hand):
 * their closed payment reviews, which ended with NeedsAttention on when the return failed, need no
 * one any more (`payments stuck` leaves them out).
 */
export async function returnsPaid(orm: Orm, paymentIds: readonly string[]): Promise<Set<string>> {
  if (paymentIds.length === 0) return new Set();
  const rows = await orm.em
    .fork()
    .execute<Array<{ payment_id: string }>>(`select payment_id from late_answers where payment_id in (select jsonb_array_elements_text(?::jsonb)) and settled_action = 'return' and return_status = 'succeeded'`,
      [JSON.stringify(paymentIds)],
    );
  return new Set(rows.map((r) => r.payment_id));
}

/**
 * The age in seconds of the oldest return of late money not paid yet (settled `return`, its transfer
 * requested, on its way at the partner, or failed there), 0 when none: the API's metrics sampler
 * (`payments_returns_in_transit_oldest_age_seconds`, alert PaymentsReturnNotPaid).
 */
export async function oldestUnpaidReturnAgeSeconds(orm: Orm): Promise<number> {
  const rows = await orm.em
    .fork()
    .execute<Array<{ age: string | null }>>(
      `select extract(epoch from clock_timestamp() - min(coalesce(settled_at, recorded_at)))::text as age from late_answers where settled_action = 'return' and return_status is distinct from 'succeeded'`,
    );
  return rows[0]?.age == null ? 0 : Math.max(0, Math.round(Number(rows[0].age)));
}
