import { randomBytes } from 'node:crypto';
import type { Orm } from '../../src/persistence/orm';
import { createSecretBox } from '../../src/support/secret-box';

/**
 * The backlog a Temporal outage leaves (issue 34, "A backlog after an outage"), written straight into
 * the tables the relays read, with `generate_series` (one statement per table: minutes for millions of
 * rows, not hours):
 * - `merchants` merchants (`mer_bl…`), each with one active webhook endpoint per environment;
 * - `events` undispatched events spread evenly over them, oldest first by merchant in turn, three in
 *   four in the sandbox and one in four live, over the last `windowMinutes`; every third one is a
 *   `transaction.succeeded`, so the events' own trigger queues it in `notification_outbox` (the
 *   notification relay's backlog) as a real event insert does;
 * - `charges`, `payouts`, `refunds`, `disputes` payments whose workflow was never confirmed started
 *   (`workflow_started_at` null, a status the start relays take), the start relays' backlogs.
 * Sequences stay gapless per merchant and environment and `event_counters` is moved past them, so
 * events written later by the real store follow on. Every row is new (ids carry `bl` and a run tag).
 * The endpoints' signing secrets are sealed with a throwaway key: the seeded database is for measuring
 * the relays, not for sending.
 */
export interface BacklogSize {
  merchants: number;
  events: number;
  charges?: number;
  payouts?: number;
  refunds?: number;
  disputes?: number;
  /** How far back the oldest row goes (default 180: a three-hour outage). */
  windowMinutes?: number;
}

export interface SeededBacklog {
  tag: string;
  merchantIds: string[];
  /** Milliseconds each table took. */
  timings: Record<string, number>;
}

export async function seedBacklog(orm: Orm, size: BacklogSize, log: (line: string) => void = () => {}): Promise<SeededBacklog> {
  const tag = randomBytes(3).toString('hex');
  const conn = orm.em.getConnection();
  const timings: Record<string, number> = {};
  const window = `${size.windowMinutes ?? 180} minutes`;
  const step = async (name: string, sql: string, params: unknown[] = []) => {
    const started = Date.now();
    await conn.execute(sql, params);
    timings[name] = Date.now() - started;
    log(`${name}: ${timings[name]} ms`);
  };
  const M = size.merchants;
  // Merchant i (0-based) of this run.
  const merchantId = (i: string) => `'mer_bl${tag}_' || lpad((${i})::text, 6, '0')`;
  await step('merchants', `insert into merchants (id, name, verified_at, created_at, notification_email)
     select ${merchantId('i')}, 'Backlog merchant ' || i, now(), now() - interval '1 year', 'ops' || i || '@backlog.example'
     from generate_series(0, ? - 1) i`, [M]);
  const sealed = createSecretBox(randomBytes(32)).seal('whsec_backlog_' + randomBytes(16).toString('hex'));
  await step('webhook_endpoints', `insert into webhook_endpoints (id, merchant_id, environment, url, subscribed_events, timeout_seconds, status, secret_box,
       created_at, updated_at)
     select 'we_bl${tag}_' || env || '_' || i, ${merchantId('i')}, env, 'https://hooks.backlog.example/' || i, '{}', 10, 'active', ?,
       date_trunc('milliseconds', now() - interval '1 year'), now()
     from generate_series(0, ? - 1) i cross join (values ('sandbox'), ('live')) v(env)`, [sealed, M]);
  if (size.events > 0) await seedEvents(step, tag, merchantId, M, size.events, window);
  const payments = { charges: size.charges ?? 0, payouts: size.payouts ?? 0, refunds: size.refunds ?? 0, disputes: size.disputes ?? 0 };
  // Refunds and disputes name a charge: the seeded succeeded charges they hang on (started long ago).
  const parents = Math.max(payments.refunds, payments.disputes);
  if (payments.charges + parents > 0) await seedCharges(step, tag, merchantId, M, payments.charges, parents, window);
  if (payments.payouts > 0) await step('payouts', `insert into payouts (id, merchant_id, environment, status, amount, currency, channel, bank_code, recipient_masked,
       recipient_name, your_reference, reference, metadata_json, fee_platform, fee_tax, total_debit, requires_review, created_at, updated_at)
     select 'po_bl${tag}_' || g, ${merchantId('g % ?')}, 'sandbox', case when g % 10 = 0 then 'held_for_review' else 'pending' end, 10000, 'GHS', 'bank', 'GCB',
       '****1234', 'Backlog recipient', 'bl-po-' || g, 'PO-BL${tag}-' || g, '{}', 100, 0, 10100, g % 10 = 0,
       now() - interval '${window}' + (g::float8 / ?) * interval '${window}' - interval '1 minute', now()
     from generate_series(0, ? - 1) g`, [M, payments.payouts, payments.payouts]);
  if (payments.refunds > 0) await step('refunds', `insert into refunds (id, merchant_id, environment, charge_id, status, amount, currency, metadata_json, created_at, updated_at)
     select 're_bl${tag}_' || g, c.merchant_id, 'sandbox', c.id, 'pending', 100, 'GHS', '{}',
       now() - interval '${window}' + (g::float8 / ?) * interval '${window}' - interval '1 minute', now()
     from generate_series(0, ? - 1) g join charges c on c.id = 'chp_bl${tag}_' || g`, [payments.refunds, payments.refunds]);
  if (payments.disputes > 0) await step('disputes', `insert into disputes (id, merchant_id, environment, charge_id, status, amount, currency, reason, evidence_due_by, created_at, updated_at)
     select 'dp_bl${tag}_' || g, c.merchant_id, 'sandbox', c.id, 'needs_response', 1000, 'GHS', 'general', now() + interval '7 days',
       now() - interval '${window}' + (g::float8 / ?) * interval '${window}' - interval '1 minute', now()
     from generate_series(0, ? - 1) g join charges c on c.id = 'chp_bl${tag}_' || g`, [payments.disputes, payments.disputes]);
  await step('analyze', `analyze merchants, webhook_endpoints, events, event_counters, notification_outbox, charges, payouts, refunds, disputes`);
  return { tag, merchantIds: Array.from({ length: M }, (_, i) => `mer_bl${tag}_${String(i).padStart(6, '0')}`), timings };
}

type Step = (name: string, sql: string, params?: unknown[]) => Promise<void>;

/**
 * Event g (0-based) belongs to merchant g mod M and is that merchant's k-th (k = g div M): the k-th of
 * every merchant is older than anyone's (k+1)-th. One in four (k mod 4 = 3) is live. The sequence is
 * the event's place in its merchant and environment, so `unique (merchant_id, environment, sequence)`
 * holds and the counters can be moved past it.
 */
async function seedEvents(step: Step, tag: string, merchantId: (i: string) => string, M: number, events: number, window: string): Promise<void> {
  await step('events', `insert into events (id, merchant_id, environment, sequence, type, resource_type, resource_id, dedupe_key, body, created_at)
     select id, mid, env, seq, type, 'charge', rid, 'backlog:' || id,
       json_build_object('id', id, 'object', 'event', 'type', type, 'resource_type', 'charge', 'resource_id', rid, 'sequence', seq,
         'created_at', to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'data', json_build_object('id', rid, 'object', 'charge', 'amount', 10000, 'currency', 'GHS', 'channel', 'mobile_money'))::text,
       at
     from (select 'evt_bl${tag}_' || g as id, ${merchantId('g % ?')} as mid, 'ch_bl${tag}_' || g as rid,
             case when (g / ?) % 4 = 3 then 'live' else 'sandbox' end as env,
             case when (g / ?) % 4 = 3 then (g / ?) / 4 + 1 else (g / ? + 1) - (g / ? + 1) / 4 end as seq,
             case when g % 3 = 0 then 'transaction.succeeded' else 'transaction.created' end as type,
             date_trunc('milliseconds', now() - interval '${window}' + (g::float8 / ?) * interval '${window}' - interval '1 minute') as at
           from generate_series(0::bigint, ?::bigint - 1) g) s`, [M, M, M, M, M, M, events, events]);
  await step('event_counters', `insert into event_counters (merchant_id, environment, last_sequence)
     select merchant_id, environment, max(sequence) from events where merchant_id like 'mer_bl${tag}_%' group by merchant_id, environment
     on conflict (merchant_id, environment) do update set last_sequence = greatest(event_counters.last_sequence, excluded.last_sequence)`);
}

/** `charges` pending charges never confirmed started, and `parents` succeeded ones (started) that refunds and disputes hang on. */
async function seedCharges(step: Step, tag: string, merchantId: (i: string) => string, M: number, charges: number, parents: number, window: string): Promise<void> {
  const columns = `id, merchant_id, environment, status, reference, amount, currency, channel, fee_platform, fee_tax, fee_bearer, merchant_amount,
       customer_masked, metadata_json, created_at, expires_at, updated_at, workflow_started_at`;
  if (charges > 0) await step('charges', `insert into charges (${columns})
     select 'ch_bl${tag}_' || g, ${merchantId('g % ?')}, 'sandbox', case when g % 5 = 0 then 'awaiting_action' else 'pending' end, 'CH-BL${tag}-' || g,
       10000, 'GHS', 'mobile_money', 150, 0, 'merchant', 9850, '024****567', '{}', at, at + interval '10 minutes', now(), null
     from (select g, now() - interval '${window}' + (g::float8 / ?) * interval '${window}' - interval '1 minute' as at
           from generate_series(0, ? - 1) g) s`, [M, charges, charges]);
  if (parents > 0) await step('charges (refunded or disputed, started)', `insert into charges (${columns})
     select 'chp_bl${tag}_' || g, ${merchantId('g % ?')}, 'sandbox', 'succeeded', 'CHP-BL${tag}-' || g,
       10000, 'GHS', 'mobile_money', 150, 0, 'merchant', 9850, '024****567', '{}', now() - interval '2 days', now() - interval '2 days', now(), now() - interval '2 days'
     from generate_series(0, ? - 1) g`, [M, parents]);
}
