import type { Orm } from '../orm';

/**
 * `operator_audit.temporal_identity` (Migration20261215000073): the identity Temporal recorded for
 * the update that made an audited action (src/runtime/audit-identity.ts), beside the operator the
 * request claims. Set once: a row that has one keeps it. Request ids are the updates' own (unique).
 * Answers how many rows it set.
 */
export async function recordAuditIdentity(orm: Orm, requestId: string, identity: string): Promise<number> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<Array<{ id: string }>>(`update operator_audit set temporal_identity = ? where request_id = ? and temporal_identity is null returning id`, [identity.slice(0, 500), requestId]);
  return rows.length;
}
