import type { EntityManager } from '@mikro-orm/postgresql';
import type { BreakKind } from '../../domain/break-kinds';
import type { BreakFacts } from '../../reconcile/resolve-rules';

/**
 * What `reconcile resolve` checks a break against (src/reconcile/resolve-rules.ts), read in the
 * resolving transaction: the payment's status now, its late money (late_answers: unsettled while
 * `settled_action` is null), and what other imported statements list for the reference.
 */
export async function breakFacts(
  em: EntityManager,
  b: { id: string; kind: BreakKind; reference: string; payment_id: string | null; statement_date: string; partner_status: string | null; statement_id: string },
): Promise<BreakFacts> {
  const [payment] = b.payment_id
    ? await em.execute<Array<{ status: string | null }>>(
        `select coalesce((select status from charges where id = ?), (select status from payouts where id = ?), (select status from settlements where id = ?)) as status`,
        [b.payment_id, b.payment_id, b.payment_id],
      )
    : [undefined];
  // Under the late money's row lock: a settle-late under way is waited for.
  const [late] = b.payment_id ? await em.execute<Array<{ settled_action: string | null }>>(`select settled_action from late_answers where payment_id = ? for update`, [b.payment_id]) : [undefined];
  const others = await em.execute<Array<{ status: string }>>(
    `select distinct l.status from partner_statement_lines l
     where lower(l.reference_id) = lower(?) and l.statement_id <> ? and l.status in ('SUCCESSFUL', 'FAILED')`,
    [b.reference, b.statement_id],
  );
  return {
    id: b.id,
    kind: b.kind,
    reference: b.reference,
    paymentId: b.payment_id,
    statementDate: b.statement_date,
    partnerStatus: b.partner_status,
    ourStatusNow: payment?.status ?? null,
    lateMoney: !late ? 'none' : late.settled_action ? 'settled' : 'unsettled',
    otherStatementStatuses: others.map((o) => o.status),
  };
}
