import { createMerchant } from '../../../src/persistence/merchants/merchant-store';
import type { Orm } from '../../../src/persistence/orm';
import { randomBase62 } from '../../../src/support/new-id';
import type { RowGroup } from './retention-report';

/**
 * The retention bench's data set (scripts/bench/retention/retention.ts), written in SQL that mirrors the
 * stores' rows exactly (as test/integration/retention.test.ts and scripts/explain-retention.ts write
 * them), on a merchant of its own (created through the merchant store) so the API's load merchant is
 * untouched. Ages are set from PostgreSQL's clock, the one the job uses. Every row carries a tag in
 * its key (`…_rd<tag>_` past its window, `…_rk<tag>_` to be kept), so the bench counts each group
 * before and after the job.
 *
 * - webhook deliveries: `deliveries` ended ones (succeeded, failed, skipped) created 91–120 days ago
 *   with two attempts each and an event each; kept: a tenth as many (at least 1000) ended ones 1–89
 *   days old with one attempt, and 1000 `pending` ones 100 days old with one attempt;
 * - notifications: `notifications` ended ones 91–120 days old with one attempt each; kept: 1000
 *   `pending` ones 100 days old and 1000 sent ones 10 days old, one attempt each;
 * - idempotency keys: `idempotency` `done` records 2–30 days old; kept: 1000 done ones an hour old and
 *   1000 `in_flight` ones 3 days old whose lock has not ended;
 * - rate-limit counters: `rateLimits` expired 2 hours to 30 days ago; kept: 1000 expired 10 minutes
 *   ago and 1000 live ones.
 */
export interface SeedSizes {
  deliveries: number;
  notifications: number;
  idempotency: number;
  rateLimits: number;
}

/** Rows per INSERT: each statement stays well under the API pool's statement_timeout (20 s). */
const CHUNK = 25_000;
const KEPT = 1000;

export interface Seeded {
  tag: string;
  merchantId: string;
  groups: RowGroup[];
}

export async function seedRetentionSet(orm: Orm, sizes: SeedSizes, log: (m: string) => void): Promise<Seeded> {
  const sql = (q: string, p: unknown[] = []) => orm.em.getConnection().execute(q, p);
  const tag = randomBase62(6).toLowerCase();
  const merchant = await createMerchant(orm, `Retention bench ${tag}`);
  const m = merchant.id;
  const endpoint = `we_r${tag}`;
  await sql(
    `insert into webhook_endpoints (id, merchant_id, environment, url, subscribed_events, timeout_seconds, status, secret_box, created_at, updated_at, deleted_at)
     values (?, ?, 'sandbox', 'https://example.com/retention-bench', '{}', 10, 'active', 'x', now(), now(), now())`,
    [endpoint, m],
  );
  const keptRecent = Math.max(KEPT, Math.floor(sizes.deliveries / 10));
  const chunks = async (what: string, n: number, insert: (from: number, to: number) => Promise<unknown>) => {
    const t = Date.now();
    for (let from = 1; from <= n; from += CHUNK) await insert(from, Math.min(n, from + CHUNK - 1));
    log(`seeded ${n.toLocaleString('en')} ${what} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  };

  // Deliveries: one event each, sequences in three ranges. The events are dispatched (the webhook relay
  // has nothing to do) and of a type no notification follows (transaction.failed): an old event's
  // outbox work was done long ago, so seeding starts no relay work beside the measurement.
  const deliveries = async (prefix: string, seqBase: number, n: number, status: string, age: string, attempts: number) =>
    chunks(`${prefix} deliveries (${status}, ${attempts} attempts each)`, n, async (from, to) => {
      await sql(
        `insert into events (id, merchant_id, environment, sequence, type, resource_type, resource_id, dedupe_key, body, created_at, dispatched_at)
         select 'evt_' || ? || g, ?, 'sandbox', ? + g, 'transaction.failed', 'transaction', 'txn_' || ? || g, 'retention-bench-' || ? || g, '{}', now() - ${age}, now()
         from generate_series(?::int, ?::int) g`,
        [prefix, m, seqBase, prefix, prefix, from, to],
      );
      await sql(
        `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, attempt_count, created_at, updated_at, completed_at, workflow_started_at)
         select 'dlv_' || ? || g, ?, 'evt_' || ? || g, ?, 'sandbox', 'transaction.failed',
                ${status === 'ended' ? `(array['succeeded','failed','skipped'])[1 + g % 3]` : `'pending'`}, ?,
                date_trunc('milliseconds', now() - ${age}), now(), ${status === 'ended' ? 'now()' : 'null'}, now()
         from generate_series(?::int, ?::int) g`,
        [prefix, endpoint, prefix, m, attempts, from, to],
      );
      await sql(
        `insert into webhook_attempts (delivery_id, attempt, attempted_at, outcome, status_code, duration_ms)
         select 'dlv_' || ? || g, a, now() - ${age}, case when a = ? then 'succeeded' else 'failed' end, 500, 10
         from generate_series(?::int, ?::int) g, generate_series(1, ?::int) a`,
        [prefix, attempts, from, to, attempts],
      );
    });
  // Ages spread evenly over their range by g (g / n of the range).
  const spread = (fromDays: number, toDays: number, n: number) => `make_interval(secs => ${fromDays * 86400} + g * (${(toDays - fromDays) * 86400}.0 / ${n}))`;
  await deliveries(`rd${tag}_`, 0, sizes.deliveries, 'ended', spread(91, 120, sizes.deliveries), 2);
  await deliveries(`rk${tag}_`, sizes.deliveries, keptRecent, 'ended', spread(1, 89, keptRecent), 1);
  await deliveries(`rp${tag}_`, sizes.deliveries + keptRecent, KEPT, 'pending', `make_interval(days => 100)`, 1);

  const notifications = async (prefix: string, n: number, status: string, age: string) =>
    chunks(`${prefix} notifications (${status})`, n, async (from, to) => {
      await sql(
        `insert into notifications (id, merchant_id, environment, kind, recipient, source_id, resource_id, channel, status, attempt_count, created_at, updated_at, completed_at, workflow_started_at)
         select 'ntf_' || ? || g, ?, 'sandbox', 'charge_receipt', 'customer', 'evt_ntf' || ? || g, 'txn_x', 'email', ?, 1, date_trunc('milliseconds', now() - ${age}), now(), ${status === 'pending' ? 'null' : 'now()'}, now()
         from generate_series(?::int, ?::int) g`,
        [prefix, m, prefix, status, from, to],
      );
      await sql(
        `insert into notification_attempts (notification_id, attempt, attempted_at, outcome) select 'ntf_' || ? || g, 1, now() - ${age}, ? from generate_series(?::int, ?::int) g`,
        [prefix, status === 'sent' ? 'sent' : 'failed', from, to],
      );
    });
  await notifications(`rd${tag}_`, sizes.notifications, 'sent', spread(91, 120, sizes.notifications));
  await notifications(`rp${tag}_`, KEPT, 'pending', `make_interval(days => 100)`);
  await notifications(`rk${tag}_`, KEPT, 'sent', `make_interval(days => 10)`);

  const idempotency = async (prefix: string, n: number, state: string, age: string, lockedUntil: string) =>
    chunks(`${prefix} idempotency keys (${state})`, n, (from, to) =>
      sql(
        `insert into idempotency_keys (merchant_id, environment, key, request_hash, resource_id, state, response_status, response_body, locked_until, created_at)
         select ?, 'sandbox', ? || g, 'h', 'ch_x', ?, ${state === 'done' ? `200, '{}'` : 'null, null'}, ${lockedUntil}, now() - ${age}
         from generate_series(?::int, ?::int) g`,
        [m, prefix, state, from, to],
      ),
    );
  await idempotency(`rd${tag}_`, sizes.idempotency, 'done', spread(2, 30, sizes.idempotency), 'now() - make_interval(days => 2)');
  await idempotency(`rk${tag}_`, KEPT, 'done', `make_interval(hours => 1)`, 'now()');
  await idempotency(`rf${tag}_`, KEPT, 'in_flight', `make_interval(days => 3)`, 'now() + make_interval(hours => 1)');

  const rateLimits = async (prefix: string, n: number, expire: string) =>
    chunks(`${prefix} rate-limit counters`, n, (from, to) =>
      sql(`insert into rate_limits (key, points, expire) select 'rl_' || ? || g, 1, ${expire} from generate_series(?::int, ?::int) g`, [prefix, from, to]),
    );
  const nowMs = `(extract(epoch from now()) * 1000)::bigint`;
  await rateLimits(`rd${tag}_`, sizes.rateLimits, `${nowMs} - (7200000 + g * (2592000000::bigint / ${Math.max(1, sizes.rateLimits)}))::bigint`);
  await rateLimits(`rk${tag}_`, KEPT, `${nowMs} - 600000`);
  await rateLimits(`rl${tag}_`, KEPT, `${nowMs} + 3600000`);

  await sql(`analyze events; analyze webhook_deliveries; analyze webhook_attempts; analyze notifications; analyze notification_attempts; analyze idempotency_keys; analyze rate_limits`);

  const group = (table: string, column: string, pattern: string, seeded: number, mustGo: boolean): RowGroup => ({ table, label: pattern, where: `${column} like '${pattern}%'`, seeded, mustGo });
  const groups: RowGroup[] = [
    group('webhook_deliveries', 'id', `dlv_rd${tag}_`, sizes.deliveries, true),
    group('webhook_attempts', 'delivery_id', `dlv_rd${tag}_`, 2 * sizes.deliveries, true),
    group('webhook_deliveries', 'id', `dlv_rk${tag}_`, keptRecent, false),
    group('webhook_attempts', 'delivery_id', `dlv_rk${tag}_`, keptRecent, false),
    group('webhook_deliveries', 'id', `dlv_rp${tag}_`, KEPT, false),
    group('webhook_attempts', 'delivery_id', `dlv_rp${tag}_`, KEPT, false),
    group('events', 'id', `evt_rd${tag}_`, sizes.deliveries, false),
    group('notifications', 'id', `ntf_rd${tag}_`, sizes.notifications, true),
    group('notification_attempts', 'notification_id', `ntf_rd${tag}_`, sizes.notifications, true),
    group('notifications', 'id', `ntf_rp${tag}_`, KEPT, false),
    group('notifications', 'id', `ntf_rk${tag}_`, KEPT, false),
    group('notification_attempts', 'notification_id', `ntf_rk${tag}_`, KEPT, false),
    group('idempotency_keys', 'key', `rd${tag}_`, sizes.idempotency, true),
    group('idempotency_keys', 'key', `rk${tag}_`, KEPT, false),
    group('idempotency_keys', 'key', `rf${tag}_`, KEPT, false),
    group('rate_limits', 'key', `rl_rd${tag}_`, sizes.rateLimits, true),
    group('rate_limits', 'key', `rl_rk${tag}_`, KEPT, false),
    group('rate_limits', 'key', `rl_rl${tag}_`, KEPT, false),
  ];
  return { tag, merchantId: m, groups };
}

/** Rows of each group now (one count per group; the LIKE prefixes read the primary keys). */
export async function countGroups(orm: Orm, groups: readonly RowGroup[]): Promise<number[]> {
  const out: number[] = [];
  for (const g of groups) {
    const [row] = await orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from ${g.table} where ${g.where}`, []);
    out.push(Number(row.n));
  }
  return out;
}

/** Whole-table row counts (the job spans the database, as in production). */
export const TABLES = ['webhook_deliveries', 'webhook_attempts', 'idempotency_keys', 'rate_limits', 'notifications', 'notification_attempts', 'events'] as const;

export async function countTables(orm: Orm): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES) out[t] = Number((await orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from ${t}`, []))[0].n);
  return out;
}
