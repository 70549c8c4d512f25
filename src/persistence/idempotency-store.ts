import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../domain/environment';
import type { Orm } from './orm';

/** The ORM (each statement on its own), or an EntityManager inside the caller's transaction. */
export type Db = Orm | EntityManager;

function sql<T extends object[]>(db: Db, query: string, params: unknown[]): Promise<T> {
  return 'em' in db ? db.em.getConnection().execute<T>(query, params) : db.execute<T>(query, params);
}

/** How long a request may hold a key before another attempt with the same body may take it over. */
export const IDEMPOTENCY_LOCK_SECONDS = 60;

export type Claim =
  | { kind: 'claimed'; resourceId: string }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_use' }
  | { kind: 'reused' };

export interface IdempotencyScope {
  merchantId: string;
  environment: Environment;
  key: string;
}

/**
 * Claims an Idempotency-Key for one request. Exactly one concurrent caller claims it; the others see
 * the stored answer, `in_use` while the first is still working, or `reused` for a different body. A
 * claim whose holder died (lock expired, no answer stored) is taken over with the same resource id,
 * so a retry after a crash converges on the same charge and workflow.
 *
 * Inside a transaction (an EntityManager), the claim stays invisible until commit; a concurrent claim
 * of the same key meanwhile sees `in_use` (it never waits on the transaction), and once the
 * transaction commits with its answer (storeIdempotentAnswer), `replay`. If it rolls back, nothing
 * of the claim remains.
 */
export async function claimIdempotencyKey(db: Db, scope: IdempotencyScope, requestHash: string, proposedResourceId: string): Promise<Claim> {
  // The advisory lock (held to the end of the caller's transaction) marks the key as being claimed:
  // a concurrent claim does not wait for an uncommitted row, it sees `in_use` at once.
  const inserted = await sql<{ resource_id: string }[]>(
    db,
    `insert into idempotency_keys (merchant_id, environment, key, request_hash, resource_id, state, locked_until)
     select ?, ?, ?, ?, ?, 'in_flight', now() + make_interval(secs => ?)
     where pg_try_advisory_xact_lock(hashtextextended(?, 0))
     on conflict do nothing returning resource_id`,
    [scope.merchantId, scope.environment, scope.key, requestHash, proposedResourceId, IDEMPOTENCY_LOCK_SECONDS, `idempotency|${scope.merchantId}|${scope.environment}|${scope.key}`],
  );
  if (inserted.length === 1) return { kind: 'claimed', resourceId: inserted[0].resource_id };
  const rows = await sql<{ request_hash: string; state: string; response_status: number | null; response_body: string | null }[]>(
    db,
    `select request_hash, state, response_status, response_body from idempotency_keys where merchant_id = ? and environment = ? and key = ?`,
    [scope.merchantId, scope.environment, scope.key],
  );
  const row = rows[0];
  // No committed row: another transaction is claiming the key right now.
  if (!row) return { kind: 'in_use' };
  if (row.request_hash !== requestHash) return { kind: 'reused' };
  if (row.state === 'done') return { kind: 'replay', status: row.response_status ?? 200, body: row.response_body ?? '' };
  const takenOver = await sql<{ resource_id: string }[]>(
    db,
    `update idempotency_keys set locked_until = now() + make_interval(secs => ?)
     where merchant_id = ? and environment = ? and key = ? and state = 'in_flight' and locked_until < now()
     returning resource_id`,
    [IDEMPOTENCY_LOCK_SECONDS, scope.merchantId, scope.environment, scope.key],
  );
  if (takenOver.length === 1) return { kind: 'claimed', resourceId: takenOver[0].resource_id };
  return { kind: 'in_use' };
}

/**
 * Stores the first answer; later requests with the key get these bytes back. When two attempts both
 * finish (a takeover raced the original), the first stored answer wins and is returned to both.
 */
export async function completeIdempotencyKey(orm: Orm, scope: IdempotencyScope, status: number, body: string): Promise<{ status: number; body: string }> {
  const conn = orm.em.getConnection();
  const won = await conn.execute<unknown[]>(
    `update idempotency_keys set state = 'done', response_status = ?, response_body = ?
     where merchant_id = ? and environment = ? and key = ? and state = 'in_flight' returning 1`,
    [status, body, scope.merchantId, scope.environment, scope.key],
  );
  if (won.length === 1) return { status, body };
  const rows = await conn.execute<{ response_status: number; response_body: string }[]>(
    `select response_status, response_body from idempotency_keys where merchant_id = ? and environment = ? and key = ?`,
    [scope.merchantId, scope.environment, scope.key],
  );
  return { status: rows[0].response_status, body: rows[0].response_body };
}

/**
 * Stores the answer of a key claimed in the same transaction (the claim's row is locked by it, so no
 * other attempt can have answered): it becomes visible with everything else at commit.
 */
export async function storeIdempotentAnswer(em: EntityManager, scope: IdempotencyScope, status: number, body: string): Promise<void> {
  await em.execute(
    `update idempotency_keys set state = 'done', response_status = ?, response_body = ?
     where merchant_id = ? and environment = ? and key = ? and state = 'in_flight'`,
    [status, body, scope.merchantId, scope.environment, scope.key],
  );
}

/** Keeps a claim (and its resource id) but lets the next attempt take it over at once. */
export async function unlockIdempotencyKey(orm: Orm, scope: IdempotencyScope): Promise<void> {
  await orm.em.getConnection().execute(
    `update idempotency_keys set locked_until = now() - interval '1 second' where merchant_id = ? and environment = ? and key = ? and state = 'in_flight'`,
    [scope.merchantId, scope.environment, scope.key],
  );
}

/**
 * Deletes up to `batch` Idempotency-Key records past retention, oldest first, and returns how many
 * it deleted. A record goes once it is older than `olderThanSeconds` (from its first claim) and its
 * request has finished: its answer is stored (`done`), or its claim was given up long ago (`in_flight`
 * whose lock expired `olderThanSeconds` ago: the request died or failed, nobody holds it). A record
 * whose request may still be running (lock not expired that long) is never deleted. Rows locked by a
 * concurrent statement are skipped (the next pass takes them). Uses idempotency_keys_created_at.
 */
export async function deleteExpiredIdempotencyKeys(orm: Orm, olderThanSeconds: number, batch: number): Promise<number> {
  const rows = await orm.em.getConnection().execute<{ n: number }[]>(
    `with doomed as (
       select merchant_id, environment, key from idempotency_keys
       where created_at < now() - make_interval(secs => ?)
         and (state = 'done' or locked_until < now() - make_interval(secs => ?))
       order by created_at limit ? for update skip locked),
     deleted as (
       delete from idempotency_keys k using doomed d
       where k.merchant_id = d.merchant_id and k.environment = d.environment and k.key = d.key
       returning 1)
     select count(*)::int as n from deleted`,
    [olderThanSeconds, olderThanSeconds, batch],
  );
  return Number(rows[0].n);
}
