import type { Orm } from '../../../src/persistence/orm';
import { encodeListCursor } from '../../../src/persistence/sql-values';
import { unfinishedRecords } from '../../../src/persistence/unfinished-records';
import { overdueCharges } from '../../../src/runtime/charge-reconciler';
import type { PortalClient } from '../../../test/support/portal-client';

/**
 * The reads of issue 34, "A million rows per merchant", each a closed-loop step of the reads bench
 * (scripts/bench/reads/reads.ts): the API's GETs (sandbox listener, the merchant's key), the portal's pages
 * (a signed-in user), and the operator's lists that read the database (`payments stuck`'s unfinished
 * records and the reconciler's overdue charges, the database half of the NeedsAttention and stuck
 * lists; the other half is Temporal's visibility, not this database). Deep cursors are real ones: the
 * `next_cursor` of a page the API answered for a filter half-way back in the history.
 */
export interface ReadCase {
  group: string;
  name: string;
  /** Untimed, before each run. */
  prepare?: () => Promise<void>;
  run(): Promise<void>;
}

export interface Fixture {
  merchantId: string;
  endpointId: string;
  lastSequence: number;
  chargeWithRefund: string;
  chargeWithDispute: string;
  payoutId: string;
  refundId: string;
  disputeId: string;
  settlementId: string;
  failedDeliveryId: string;
  /** The delivery half-way back (the deliveries list has no date filter to find one with). */
  middleDelivery: { createdAt: string; id: string };
  /** An ISO instant half-way back in the history. */
  middle: string;
  /** An ISO instant a day after `middle`. */
  middlePlusDay: string;
  reference: string;
  payoutReference: string;
}

export async function readFixture(orm: Orm, merchantId: string): Promise<Fixture> {
  const one = async (sql: string): Promise<string> => {
    const rows = await orm.em.getConnection().execute<{ v: string }[]>(sql, []);
    if (!rows[0]?.v) throw new Error(`the seeded merchant ${merchantId} has no row for: ${sql}`);
    return String(rows[0].v);
  };
  const m = `'${merchantId.replace(/'/g, '')}'`;
  const first = await one(`select min(created_at)::text as v from charges where merchant_id = ${m}`);
  const middleMs = (Date.parse(first.replace(' ', 'T').replace(/\+00$/, 'Z')) + Date.now()) / 2;
  return {
    merchantId,
    endpointId: await one(`select id as v from webhook_endpoints where merchant_id = ${m} and environment = 'sandbox' order by created_at limit 1`),
    lastSequence: Number(await one(`select last_sequence::text as v from event_counters where merchant_id = ${m} and environment = 'sandbox'`)),
    chargeWithRefund: await one(`select charge_id as v from refunds where merchant_id = ${m} order by created_at desc limit 1 offset (select count(*) / 3 from refunds where merchant_id = ${m})`),
    chargeWithDispute: await one(`select charge_id as v from disputes where merchant_id = ${m} order by created_at desc limit 1 offset (select count(*) / 3 from disputes where merchant_id = ${m})`),
    payoutId: await one(`select id as v from payouts where merchant_id = ${m} order by created_at desc limit 1 offset (select count(*) / 3 from payouts where merchant_id = ${m})`),
    refundId: await one(`select id as v from refunds where merchant_id = ${m} order by created_at desc limit 1 offset (select count(*) / 3 from refunds where merchant_id = ${m})`),
    disputeId: await one(`select id as v from disputes where merchant_id = ${m} order by created_at desc limit 1 offset (select count(*) / 3 from disputes where merchant_id = ${m})`),
    settlementId: await one(`select id as v from settlements where merchant_id = ${m} and entry_count > 0 order by entry_count desc limit 1`),
    failedDeliveryId: await one(`select id as v from webhook_deliveries where merchant_id = ${m} and status = 'failed' order by created_at desc limit 1 offset (select count(*) / 3 from webhook_deliveries where merchant_id = ${m} and status = 'failed')`),
    middleDelivery: JSON.parse(await one(`select json_build_object('createdAt', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'id', id)::text as v
      from webhook_deliveries where merchant_id = ${m} order by created_at desc limit 1 offset (select count(*) / 2 from webhook_deliveries where merchant_id = ${m})`)) as { createdAt: string; id: string },
    middle: new Date(middleMs).toISOString(),
    middlePlusDay: new Date(middleMs + 86_400_000).toISOString(),
    reference: await one(`select your_reference as v from charges where merchant_id = ${m} order by created_at desc limit 1 offset (select count(*) / 3 from charges where merchant_id = ${m})`),
    payoutReference: await one(`select your_reference as v from payouts where merchant_id = ${m} order by created_at desc limit 1 offset (select count(*) / 3 from payouts where merchant_id = ${m})`),
  };
}

const seqCursor = (sequence: number) => Buffer.from(`seq:${sequence}`).toString('base64url');

export async function readCases(orm: Orm, f: Fixture, api: string, key: string, portal: PortalClient): Promise<ReadCase[]> {
  const get = async (path: string): Promise<Record<string, unknown>> => {
    const res = await fetch(api + path, { headers: { authorization: `Bearer ${key}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const page = async (path: string): Promise<void> => {
    const res = await portal.get(path);
    if (res.status !== 200) throw new Error(`portal GET ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  };
  // A real cursor half-way back: the next_cursor of the page that starts there.
  const deep = async (path: string): Promise<string> => {
    const body = await get(`${path}${path.includes('?') ? '&' : '?'}created_before=${encodeURIComponent(f.middle)}&limit=10`);
    if (typeof body.next_cursor !== 'string') throw new Error(`no next_cursor half-way back on ${path}`);
    return encodeURIComponent(body.next_cursor);
  };
  const range = `created_after=${encodeURIComponent(f.middle)}&created_before=${encodeURIComponent(f.middlePlusDay)}`;
  const cases: ReadCase[] = [];
  const apiCase = (group: string, path: string) => cases.push({ group, name: `GET ${path.length > 110 ? `${path.slice(0, 107)}…` : path}`, run: async () => void (await get(path)) });
  const portalCase = (path: string) => cases.push({ group: 'portal', name: `portal ${path}`, run: () => page(path) });

  const last = f.lastSequence;
  for (const q of [`limit=100`, `limit=100&cursor=${seqCursor(Math.floor(last / 2))}`, `limit=100&cursor=${seqCursor(200)}`,
    `limit=100&after_sequence=0`, `limit=100&after_sequence=${Math.floor(last / 2)}`, `limit=100&after_sequence=${last - 50}`]) apiCase('events', `/v1/events?${q}`);

  apiCase('balances', '/v1/balances');
  const bt = '/v1/balance-transactions';
  const btDeep = await deep(bt);
  for (const q of ['', 'type=charge', 'type=payout', 'type=refund', 'type=fee', 'type=settlement', 'type=dispute', 'type=payout_reversal', 'currency=GHS', 'currency=USD',
    `source=${f.chargeWithRefund}`, `source=${f.payoutId}`, `source=${f.refundId}`, `source=${f.settlementId}`, `created_after=${encodeURIComponent(f.middle)}`,
    `created_before=${encodeURIComponent(f.middle)}`, range, `cursor=${btDeep}`, `type=refund&cursor=${btDeep}`]) apiCase('balance transactions', `${bt}?limit=100${q ? `&${q}` : ''}`);

  const lists: Array<[string, string[]]> = [
    ['/v1/charges', ['status=succeeded', 'status=failed', 'status=pending', 'status=awaiting_action', 'status=reversed', 'channel=card', 'channel=bank&status=pending', `reference=${f.reference}`]],
    ['/v1/payouts', ['status=succeeded', 'status=failed', 'status=held_for_review', 'channel=mobile_money', `reference=${f.payoutReference}`]],
    ['/v1/refunds', ['status=succeeded', 'status=failed', `charge=${f.chargeWithRefund}`]],
    ['/v1/disputes', ['status=won', 'status=needs_response', `charge=${f.chargeWithDispute}`]],
    ['/v1/settlements', ['status=paid', 'status=pending', 'status=failed']],
  ];
  for (const [path, filters] of lists) {
    const cursor = await deep(path);
    for (const q of ['', ...filters, range, `created_before=${encodeURIComponent(f.middle)}`, `cursor=${cursor}`]) apiCase('payment lists', `${path}?limit=100${q ? `&${q}` : ''}`);
  }
  apiCase('payment lists', `/v1/settlements/${f.settlementId}/entries?limit=100`);
  const deliveries = `/v1/webhook-endpoints/${f.endpointId}/deliveries`;
  const deliveriesDeep = encodeURIComponent(encodeListCursor({ createdAt: f.middleDelivery.createdAt, id: f.middleDelivery.id }));
  for (const q of ['', 'status=failed', 'status=pending', 'status=succeeded', `cursor=${deliveriesDeep}`, `status=failed&cursor=${deliveriesDeep}`]) apiCase('deliveries', `${deliveries}?limit=100${q ? `&${q}` : ''}`);
  apiCase('deliveries', `/v1/webhook-deliveries/${f.failedDeliveryId}`);

  const paymentsCursor = await deep('/v1/charges');
  for (const q of ['', '?status=pending', `?reference=${f.reference}`, `?cursor=${paymentsCursor}`, '?type=payouts', '?type=payouts&status=failed', '?type=refunds',
    `?type=refunds&charge=${f.chargeWithRefund}`, '?type=disputes', '?type=settlements']) portalCase(`/payments${q}`);
  for (const id of [f.chargeWithRefund, f.payoutId, f.refundId, f.disputeId, f.settlementId]) portalCase(`/payments/${id}`);
  const day = f.middle.slice(0, 10);
  for (const q of ['', '?type=refund', `?from=${day}&to=${day}`, `?source=${f.payoutId}`]) portalCase(`/balances${q}`);
  for (const q of ['', `?from=${Math.floor(last / 2)}`]) portalCase(`/events${q}`);
  portalCase('/webhooks');
  portalCase(`/webhooks/${f.endpointId}`);
  portalCase(`/webhooks/deliveries/${f.failedDeliveryId}`);
  portalCase('/settings');

  cases.push({ group: 'stuck and NeedsAttention', name: 'unfinishedRecords (payments stuck: open payouts, refunds, disputes)', run: async () => void (await unfinishedRecords(orm, 60_000)) });
  cases.push({
    group: 'stuck and NeedsAttention',
    name: 'overdueCharges (the reconciler and payments stuck: every overdue charge, all pages)',
    run: async () => {
      for await (const row of overdueCharges(orm, 60_000)) void row;
    },
  });
  return cases;
}
