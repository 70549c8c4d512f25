import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeAction, ChangeActor } from '../../domain/operator-action';
import { newId } from '../../support/new-id';

/** What a change audit row records besides its actor. */
export interface ChangeRecord {
  action: ChangeAction;
  /** The changed object's id (`key_…`, `we_…`), kept in the audit's subject column (`payment_id`). */
  subjectId: string;
  /** Null for a change of no one merchant (a settlement run over every merchant). */
  merchantId: string | null;
  /** Null for a change of no one environment (a portal user). */
  environment: string | null;
  /** Non-secret state before (null for a create) and after (null for a delete). */
  before: unknown;
  after: unknown;
}

/**
 * Writes the audit row of a key or webhook endpoint change through the operators' audit path
 * (`operator_audit`, read by `audit list`), inside the caller's transaction: the change and its row
 * commit together or not at all. The reason and operator are cut to the table's limits.
 */
export async function recordChange(em: EntityManager, actor: ChangeActor, change: ChangeRecord): Promise<string> {
  const id = newId('audit');
  await em.execute(
    `insert into operator_audit (id, payment_id, action, operator, reason, state_before, state_after, request_id, batch_id, merchant_id, environment, created_at)
     values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, null, ?, ?, clock_timestamp())`,
    [
      id,
      change.subjectId,
      change.action,
      actor.operator.slice(0, 100),
      actor.reason.slice(0, 500),
      JSON.stringify(change.before ?? null),
      JSON.stringify(change.after ?? null),
      actor.requestId,
      change.merchantId,
      change.environment,
    ],
  );
  return id;
}
