import { createHash, randomBytes } from 'node:crypto';
import type { Orm } from '../../src/persistence/orm';
import { createSecretBox } from '../../src/support/secret-box';

/**
 * One merchant with a million rows (issue 34, "A million rows per merchant"), written straight into
 * the tables the stores read, with `generate_series` and `insert … select` (one statement per table:
 * minutes, not hours). All in the sandbox, in GHS, dated over the last `days` days:
 *
 * - charges: as many as the event count needs (two events each); `postings`'s share of them succeeded
 *   (spread evenly in time), each with its capture (customer_clearing, merchant_available,
 *   platform_fee, tax: the rows captureTransfer writes); the rest failed or expired (no hold posted,
 *   so none to void), and one in 5,000 still pending past its expiry (the reconciler's overdue list);
 * - payouts: nine in ten succeeded (reserve, then post), one in ten failed (reserve, then release);
 * - refunds: succeeded (reserve, post) on evenly spread succeeded charges (their amount_refunded set);
 * - disputes: won or lost on other succeeded charges (no ledger transfers: the seeded disputes only
 *   serve the lists; `ledger check` reads none of a closed dispute's money);
 * - settlements: one paid batch a day with no entries or transfers (the list's rows only; `ledger check` reads
 *   no paid batch's money; the real sweep, run by the seeding script afterwards, adds a real one);
 * - events: one per resource step (`transaction.created`, then `.succeeded`/`.failed`/`.expired`;
 *   `payout.initiated`, then its end; `refund.created`, `refund.succeeded`; `dispute.opened`, then its
 *   end), numbered 1… by date (gapless), the newest cut so that there are exactly `events`; all
 *   dispatched; `event_counters` set to the last sequence so events written later follow on;
 * - one active webhook endpoint, and `deliveries` deliveries of the newest events to it, each with its
 *   attempts (one in ten needed two, one in fifty failed after eight);
 * - account_balances: each account's sum of the merchant's ledger rows, so `ledger check` balances.
 *
 * Ids are the real prefixes with 24 hex characters (a subset of base62) from a run tag, so a second
 * run adds a second merchant. `postings` counts ledger rows: captures fill what payouts and refunds
 * leave.
 */
export interface MerchantSize {
  events: number;
  postings: number;
  deliveries: number;
  payouts: number;
  refunds: number;
  disputes: number;
  days: number;
}

export interface SeededMerchant {
  merchantId: string;
  endpointId: string;
  tag: string;
  timings: Record<string, number>;
}

const id24 = (text: string) => createHash('md5').update(text).digest('hex').slice(0, 24);

export async function seedMerchant(orm: Orm, size: MerchantSize, log: (line: string) => void = () => {}): Promise<SeededMerchant> {
  const tag = randomBytes(4).toString('hex');
  const merchantId = `mer_${id24(`${tag}:merchant`)}`;
  const endpointId = `we_${id24(`${tag}:endpoint`)}`;
  const timings: Record<string, number> = {};
  // Each step is one bulk statement (a hundred thousand rows and their indexes): it lifts the
  // connection's statement_timeout for itself, which an API's ORM (the tests') otherwise imposes.
  const step = async (name: string, sql: string, params: unknown[] = []) => {
    const started = Date.now();
    if (/^\s*vacuum\b/i.test(sql)) await orm.em.getConnection().execute(sql, params); // not in a transaction block
    else {
      await orm.em.fork().transactional(async (em) => {
        await em.execute('set local statement_timeout = 0');
        await em.execute(sql, params);
      });
    }
    timings[name] = Date.now() - started;
    log(`${name}: ${timings[name]} ms`);
  };
  const { payouts: P, refunds: R, disputes: D } = size;
  const failedPayouts = Math.floor((P + 9) / 10);
  // Ledger rows: payouts 5 (succeeded: reserve 2, post 3) or 4 (failed), refunds 4, captures 4.
  const captures = Math.max(R + D, Math.floor((size.postings - 5 * (P - failedPayouts) - 4 * failedPayouts - 4 * R) / 4));
  const charges = Math.max(captures, Math.ceil((size.events - 2 * (P + R + D)) / 2) + Math.ceil(size.events / 5000));
  const span = `${size.days} days`;
  // Resource g (0-based) of n is created at start + g/n of the window.
  const at = (n: number) => `date_trunc('milliseconds', now() - interval '${span}' + (g::float8 / ${n}) * (interval '${span}' - interval '1 hour'))`;
  const idOf = (prefix: string, kind: string) => `'${prefix}' || substr(md5('${tag}:${kind}:' || g), 1, 24)`;

  await step('merchant', `insert into merchants (id, name, verified_at, created_at, notification_email) values (?, ?, now(), now() - interval '1 year', ?)`,
    [merchantId, `Million rows ${tag}`, `ops-${tag}@merchant.example`]);
  // A throwaway key: the seeded database is for measuring reads, not for sending or paying.
  const box = createSecretBox(randomBytes(32));
  const sealed = box.seal(`whsec_${randomBytes(16).toString('hex')}`);
  await step('webhook endpoint', `insert into webhook_endpoints (id, merchant_id, environment, url, subscribed_events, timeout_seconds, status, secret_box, created_at, updated_at)
     values (?, ?, 'sandbox', 'https://hooks.merchant.example/payments', '{}', 10, 'active', ?, now() - interval '1 year', now())`, [endpointId, merchantId, sealed]);

  // Charge g succeeded when floor((g+1)·S/C) > floor(g·S/C): exactly S of C, evenly spread.
  await step(`charges (${charges}, ${captures} succeeded)`, `insert into charges (id, merchant_id, environment, status, reference, your_reference, amount, currency, channel,
       fee_platform, fee_tax, fee_bearer, merchant_amount, customer_masked, metadata_json, created_at, expires_at, updated_at, workflow_started_at)
     select ${idOf('txn_', 'charge')}, ?, 'sandbox',
       case when ((g + 1) * ${captures}) / ${charges} > (g * ${captures}) / ${charges} then 'succeeded'
            when g % 5000 = 7 then 'pending' when g % 2 = 0 then 'failed' else 'expired' end,
       'CH-${tag}-' || g, 'order-' || g, 1000 + g % 9000, 'GHS', (array['mobile_money', 'bank', 'card'])[(1 + g % 3)::int],
       (1000 + g % 9000) / 100, (1000 + g % 9000) / 1000, 'merchant', (1000 + g % 9000) - (1000 + g % 9000) / 100 - (1000 + g % 9000) / 1000,
       '024****' || lpad((g % 1000)::text, 3, '0'), '{}', ${at(charges)}, ${at(charges)} + interval '10 minutes', ${at(charges)} + interval '1 minute', ${at(charges)}
     from generate_series(0::bigint, ${charges - 1}) g`, [merchantId]);
  await step(`payouts (${P})`, `insert into payouts (id, merchant_id, environment, status, amount, currency, channel, bank_code, recipient_masked, recipient_name,
       your_reference, reference, metadata_json, fee_platform, fee_tax, total_debit, requires_review, created_at, updated_at, workflow_started_at)
     select ${idOf('po_', 'payout')}, ?, 'sandbox', case when g % 10 = 9 then 'failed' else 'succeeded' end, 5000 + g % 5000, 'GHS', 'bank', 'GCB',
       '****' || lpad((g % 10000)::text, 4, '0'), 'Recipient ' || g % 100, 'payout-' || g, 'PO-${tag}-' || g, '{}', 100, 0, 5100 + g % 5000, false,
       ${at(P)}, ${at(P)} + interval '1 minute', ${at(P)}
     from generate_series(0, ${P - 1}) g`, [merchantId]);
  // Refund g on the succeeded charge numbered g·k (k = captures / (R + D)), dispute g on g·k + k/2 (distinct charges).
  const k = Math.max(1, Math.floor(captures / Math.max(1, R + D)));
  const succeededCharge = (offset: string) => `(select id, created_at, n from (select id, created_at, row_number() over (order by created_at, id) - 1 as n
       from charges where merchant_id = '${merchantId}' and status = 'succeeded') s where n % ${k} = ${offset}) c`;
  if (R > 0) {
    await step(`refunds (${R})`, `insert into refunds (id, merchant_id, environment, charge_id, status, amount, currency, reason, metadata_json, created_at, updated_at, workflow_started_at)
       select 're_' || substr(md5('${tag}:refund:' || c.n), 1, 24), ?, 'sandbox', c.id, 'succeeded', 100, 'GHS', 'requested_by_customer', '{}',
         c.created_at + interval '1 hour', c.created_at + interval '1 hour 1 minute', c.created_at + interval '1 hour'
       from ${succeededCharge('0')} where c.n / ${k} < ${R}`, [merchantId]);
    await step('charges.amount_refunded', `update charges c set amount_refunded = r.amount from refunds r where r.charge_id = c.id and r.merchant_id = ?`, [merchantId]);
  }
  if (D > 0) await step(`disputes (${D})`, `insert into disputes (id, merchant_id, environment, charge_id, status, amount, currency, reason, evidence_due_by, created_at, updated_at, workflow_started_at)
       select 'dp_' || substr(md5('${tag}:dispute:' || c.n), 1, 24), ?, 'sandbox', c.id, case when c.n % 2 = 0 then 'won' else 'lost' end, 1000, 'GHS', 'general',
         c.created_at + interval '9 days', c.created_at + interval '2 days', c.created_at + interval '5 days', c.created_at + interval '2 days'
       from ${succeededCharge(String(Math.floor(k / 2)))} where c.n / ${k} < ${D}`, [merchantId]);
  await step(`settlements (${size.days})`, `insert into settlements (id, merchant_id, environment, currency, status, amount, entry_count, period_end, destination_bank_code,
       destination_account_sealed, destination_account_masked, paid_at, created_at, updated_at)
     select ${idOf('stl_', 'settlement')}, ?, 'sandbox', 'GHS', 'paid', 100000, 0, d, 'GCB', ?, '*********8901', d + interval '2 hours', d, d + interval '2 hours'
     from generate_series(1, ${size.days}) g cross join lateral (select date_trunc('day', now()) - g * interval '1 day' as d) x`, [merchantId, box.seal('0012345678901')]);

  await seedLedger(step, merchantId);
  await seedEvents(step, merchantId, tag, size.events);
  if (size.deliveries > 0) await seedDeliveries(step, merchantId, endpointId, tag, size.deliveries);
  await step('vacuum analyze', `vacuum analyze charges, payouts, refunds, disputes, settlements, ledger_entries, account_balances, events, event_counters, webhook_deliveries, webhook_attempts`);
  return { merchantId, endpointId, tag, timings };
}

type Step = (name: string, sql: string, params?: unknown[]) => Promise<void>;

/** The transfers the statuses imply (src/domain/ledger.ts, payout-ledger.ts, refund-ledger.ts), then the balance rows from them. */
async function seedLedger(step: Step, merchantId: string): Promise<void> {
  const columns = `insert into ledger_entries (transfer_id, account, kind, merchant_id, environment, currency, amount, resource_id, created_at)`;
  await step('ledger: captures', `${columns}
     select c.id || ':capture', p.account, 'capture', c.merchant_id, 'sandbox', 'GHS', p.amount, c.id, c.created_at + interval '30 seconds'
     from charges c cross join lateral (values ('customer_clearing', -c.amount), ('merchant_available', c.merchant_amount),
       ('platform_fee', c.fee_platform), ('tax', c.fee_tax)) p(account, amount)
     where c.merchant_id = ? and c.status = 'succeeded' and p.amount <> 0`, [merchantId]);
  await step('ledger: payouts', `${columns}
     select o.id || t.step, t.account, t.kind, o.merchant_id, 'sandbox', 'GHS', t.amount, o.id, o.created_at + t.after
     from payouts o cross join lateral (values
       (':reserve', 'payout_reserve', 'merchant_available', -o.total_debit, interval '1 second'),
       (':reserve', 'payout_reserve', 'merchant_reserved', o.total_debit, interval '1 second'),
       (case when o.status = 'succeeded' then ':post' end, 'payout_post', 'merchant_reserved', -o.total_debit, interval '1 minute'),
       (case when o.status = 'succeeded' then ':post' end, 'payout_post', 'payout_clearing', o.amount, interval '1 minute'),
       (case when o.status = 'succeeded' then ':post' end, 'payout_post', 'platform_fee', o.fee_platform, interval '1 minute'),
       (case when o.status = 'failed' then ':release' end, 'payout_release', 'merchant_reserved', -o.total_debit, interval '1 minute'),
       (case when o.status = 'failed' then ':release' end, 'payout_release', 'merchant_available', o.total_debit, interval '1 minute')
     ) t(step, kind, account, amount, after)
     where o.merchant_id = ? and t.step is not null`, [merchantId]);
  await step('ledger: refunds', `${columns}
     select r.id || t.step, t.account, t.kind, r.merchant_id, 'sandbox', 'GHS', t.amount, r.id, r.created_at + t.after
     from refunds r cross join lateral (values
       (':reserve', 'refund_reserve', 'merchant_available', -r.amount, interval '1 second'),
       (':reserve', 'refund_reserve', 'merchant_reserved', r.amount, interval '1 second'),
       (':post', 'refund_post', 'merchant_reserved', -r.amount, interval '1 minute'),
       (':post', 'refund_post', 'refund_clearing', r.amount, interval '1 minute')
     ) t(step, kind, account, amount, after)
     where r.merchant_id = ?`, [merchantId]);
  await step('account_balances', `insert into account_balances (merchant_id, environment, currency, account, amount, updated_at)
     select merchant_id, environment, currency, account, sum(amount), now() from ledger_entries where merchant_id = ? group by merchant_id, environment, currency, account`, [merchantId]);
}

/** Every resource step as an event, numbered by date; the newest beyond `count` are not written. */
async function seedEvents(step: Step, merchantId: string, tag: string, count: number): Promise<void> {
  await step(`events (${count})`, `insert into events (id, merchant_id, environment, sequence, type, resource_type, resource_id, dedupe_key, body, created_at, dispatched_at)
     select 'evt_' || substr(md5('${tag}:event:' || seq), 1, 24), ?, 'sandbox', seq, type, rtype, rid, 'seed:${tag}:' || seq,
       json_build_object('id', 'evt_' || substr(md5('${tag}:event:' || seq), 1, 24), 'object', 'event', 'type', type, 'resource_type', rtype,
         'resource_id', rid, 'sequence', seq, 'created_at', to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'data', json_build_object('id', rid, 'object', rtype, 'amount', amount, 'currency', 'GHS', 'status', status))::text,
       at, at
     from (select *, row_number() over (order by at, rid, type) as seq from (
         select id as rid, 'charge' as rtype, 'transaction.created' as type, created_at as at, amount, 'pending' as status from charges where merchant_id = ?
         union all select id, 'charge', 'transaction.' || status, created_at + case when status = 'succeeded' then interval '30 seconds' else interval '10 minutes' end,
           amount, status from charges where merchant_id = ? and status <> 'pending'
         union all select id, 'payout', 'payout.initiated', created_at + interval '1 second', amount, 'pending' from payouts where merchant_id = ?
         union all select id, 'payout', 'payout.' || status, created_at + interval '1 minute', amount, status from payouts where merchant_id = ?
         union all select id, 'refund', 'refund.created', created_at + interval '1 second', amount, 'pending' from refunds where merchant_id = ?
         union all select id, 'refund', 'refund.succeeded', created_at + interval '1 minute', amount, status from refunds where merchant_id = ?
         union all select id, 'dispute', 'dispute.opened', created_at, amount, 'needs_response' from disputes where merchant_id = ?
         union all select id, 'dispute', 'dispute.' || status, updated_at, amount, status from disputes where merchant_id = ?
       ) steps) numbered
     where seq <= ?`, [merchantId, ...Array(8).fill(merchantId), count]);
  await step('event_counters', `insert into event_counters (merchant_id, environment, last_sequence)
     select merchant_id, environment, max(sequence) from events where merchant_id = ? group by merchant_id, environment`, [merchantId]);
}

/** The newest `count` events delivered to the endpoint: one attempt, one in ten two, one in fifty failed after eight. */
async function seedDeliveries(step: Step, merchantId: string, endpointId: string, tag: string, count: number): Promise<void> {
  await step(`webhook_deliveries (${count})`, `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, attempt_count,
       last_status_code, last_error, created_at, updated_at, completed_at, workflow_started_at)
     select 'dlv_' || substr(md5('${tag}:delivery:' || e.sequence), 1, 24), ?, e.id, e.merchant_id, 'sandbox', e.type,
       case when e.sequence % 50 = 0 then 'failed' else 'succeeded' end,
       case when e.sequence % 50 = 0 then 8 when e.sequence % 10 = 0 then 2 else 1 end,
       case when e.sequence % 50 = 0 then 500 else 200 end, case when e.sequence % 50 = 0 then 'HTTP 500' end,
       e.created_at, e.created_at + interval '2 seconds', e.created_at + interval '2 seconds', e.created_at
     from events e where e.merchant_id = ? and e.environment = 'sandbox' and e.sequence > (select last_sequence from event_counters where merchant_id = ? and environment = 'sandbox') - ?`,
    [endpointId, merchantId, merchantId, count]);
  await step('webhook_attempts', `insert into webhook_attempts (delivery_id, attempt, attempted_at, outcome, status_code, duration_ms, error, response_body)
     select d.id, a, d.created_at + a * interval '100 milliseconds',
       case when d.status = 'succeeded' and a = d.attempt_count then 'succeeded' else 'failed' end,
       case when d.status = 'succeeded' and a = d.attempt_count then 200 else 500 end, 40 + a,
       case when d.status = 'succeeded' and a = d.attempt_count then null else 'HTTP 500' end, 'ok'
     from webhook_deliveries d cross join generate_series(1, d.attempt_count) a where d.endpoint_id = ?`, [endpointId]);
}
