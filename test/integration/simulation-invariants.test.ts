/**
 * The simulation's invariants (issue 33, src/simulation/invariants/): on a database of their own, over
 * the real API, worker and Temporal dev server (the harness), a few merchants with sandbox charges that
 * complete, a payout, a webhook endpoint and its deliveries, a charge still in flight, an idempotent
 * request sent twice: every invariant answers []. Then, one merchant per corruption, each invariant
 * reports what it must (a gap in an event log, a forbidden transition, a drifted balance, an object
 * whose amount disagrees with a balanced ledger, an unbalanced transfer, an unsigned request, an
 * unrecorded attempt, an open charge without a workflow, a replay with another answer), and the
 * corruption is undone (the harness's ledger check at close then passes).
 */
import { ALL_INVARIANTS, balancesMatch, deliveriesRecorded, eventSequencesGapless, idempotentReplays, ledgerBalanced, oneResourcePerKey, openPaymentsWatched, payoutsNeverOverdraw, refundsWithinCharge, transitionsAllowed } from '../../src/simulation/invariants';
import type { Invariant, Ref, SimContext, SimRegistry } from '../../src/simulation/types';
import { migrate, openOrm, type Orm } from '../../src/persistence/orm';
import { randomBase62 } from '../../src/support/new-id';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';

jest.setTimeout(120_000);

let admin: Orm;
let dbName: string;
let h: Harness;
let rx: TestReceiver;
let ctx: SimContext;
const m: Record<string, TestMerchant> = {};
const charges: Record<string, string[]> = {};
let pendingCharge: string;
let payoutId: string;

const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) => h.orm.em.fork().getConnection().execute<T[]>(query, params);

function registry(): SimRegistry {
  const created: Array<{ kind: Ref['kind']; id: string; extra: Record<string, string> }> = [];
  return {
    add: (kind, id, extra = {}) => void created.push({ kind, id, extra }),
    resolve: (ref) => created.filter((c) => c.kind === ref.kind)[ref.index] ?? null,
    count: (kind) => created.filter((c) => c.kind === kind).length,
    merchants: [],
    requests: [],
    bursts: [],
    balanceRaces: [],
    operatorActed: [],
  };
}

const unused = (what: string) => () => {
  throw new Error(`${what} is not used by the invariants`);
};

async function charge(merchant: TestMerchant, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body: chargeBody(overrides), headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(res.status).toBe(200);
  return res.json.id;
}

/** Sandbox charges that succeed (their workflows finished), per merchant. */
async function succeeded(merchant: TestMerchant, n: number): Promise<string[]> {
  const ids = await Promise.all(Array.from({ length: n }, (_, i) => charge(merchant, { amount: 10_000 + i * 1_000 })));
  for (const state of await Promise.all(ids.map((id) => h.settled(id)))) expect(state.status).toBe('succeeded');
  return ids;
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every invariant's answer, by name, and how long each took. */
async function runAll(): Promise<{ answers: Record<string, string[]>; ms: Record<string, number> }> {
  const answers: Record<string, string[]> = {};
  const ms: Record<string, number> = {};
  for (const inv of ALL_INVARIANTS) {
    const started = performance.now();
    answers[inv.name] = await inv.check(ctx);
    ms[inv.name] = Math.round((performance.now() - started) * 10) / 10;
  }
  return { answers, ms };
}

const clean = () => Object.fromEntries(ALL_INVARIANTS.map((i) => [i.name, [] as string[]]));

/** The invariant's lines that name `needle` (other merchants' rows never appear: each corruption is undone). */
async function caught(inv: Invariant, needle: string): Promise<string[]> {
  return (await inv.check(ctx)).filter((line) => line.includes(needle));
}

beforeAll(async () => {
  admin = await openOrm(process.env.TEST_DATABASE_URL!, 2);
  dbName = `sim_invariants_${randomBase62(8).toLowerCase()}`;
  await admin.em.getConnection().execute(`create database ${dbName}`);
  const suiteUrl = process.env.TEST_DATABASE_URL!;
  const url = new URL(suiteUrl);
  url.pathname = `/${dbName}`;
  const own = await openOrm(url.toString(), 2);
  await migrate(own);
  await own.close();
  process.env.TEST_DATABASE_URL = url.toString();
  try {
    h = await startHarness();
  } finally {
    process.env.TEST_DATABASE_URL = suiteUrl;
  }
  rx = await startTestReceiver();
  const received: Array<{ receiver: number; eventId: string; signatureOk: boolean; at: number; deliveryId?: string; attempt?: number }> = [];
  ctx = {
    orm: h.orm,
    temporal: h.temporal,
    taskQueue: h.taskQueue,
    api: async (environment, method, path, options = {}) => {
      const res = await h.request(environment, method, path, { key: options.key, body: options.body, headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {} });
      return { status: res.status, json: res.json, headers: res.headers };
    },
    registry: registry(),
    timeJump: unused('timeJump'),
    now: async () => Date.now(),
    restartWorker: unused('restartWorker'),
    cutDbConnections: unused('cutDbConnections'),
    failActivity: unused('failActivity'),
    receivers: {
      url: () => rx.url,
      setMode: unused('setMode'),
      received: () => {
        received.length = 0;
        for (const d of rx.deliveries) {
          const named = d.headers['x-service-delivery-id'] ? { deliveryId: d.headers['x-service-delivery-id'], attempt: Number(d.headers['x-service-attempt']) } : {};
          received.push({ receiver: 0, eventId: (JSON.parse(d.body) as { id: string }).id, signatureOk: d.validFor.length > 0, at: d.receivedAt, ...named });
        }
        return received;
      },
    },
    partner: { setBehaviour: unused('setBehaviour'), statement: unused('statement') },
    settle: async () => {},
  };

  for (const name of ['ledger', 'drift', 'objects', 'gap', 'transition', 'webhooks', 'open', 'replay']) m[name] = await h.merchant({ verified: true });
  // The webhook merchant's endpoint first, so its charges' events are delivered.
  const ep = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', {
    key: m.webhooks.testKey,
    body: { url: `${rx.url}/${m.webhooks.id}`, subscribed_events: ['transaction.created', 'transaction.succeeded', 'payout.initiated', 'payout.succeeded'] },
  });
  expect(ep.status).toBe(201);
  rx.setSecrets([ep.json.secret]);
  const made = await Promise.all(['ledger', 'drift', 'objects', 'gap', 'transition', 'webhooks'].map(async (name) => [name, await succeeded(m[name], 3)] as const));
  for (const [name, ids] of made) charges[name] = ids;
  // A payout out of the webhook merchant's collections, run to its end.
  const payout = await h.request('sandbox', 'POST', '/v1/payouts', {
    key: m.webhooks.testKey,
    body: { amount: 5_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, reference: 'sim-inv' },
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(payout.status).toBe(200);
  payoutId = payout.json.id;
  await h.temporal.client.workflow.getHandle(payoutId).result();
  // A charge still in flight (the sandbox's `pending` outcome: its workflow waits 10 minutes).
  pendingCharge = await charge(m.open, { metadata: { sandbox_outcome: 'pending' } });
  // An idempotent request, recorded in the registry, then sent again with the same key.
  const key = idempotencyKey();
  const body = chargeBody({ amount: 4_200 });
  const first = await ctx.api('sandbox', 'POST', '/v1/charges', { key: m.replay.testKey, body, idempotencyKey: key });
  expect(first.status).toBe(200);
  const again = await ctx.api('sandbox', 'POST', '/v1/charges', { key: m.replay.testKey, body, idempotencyKey: key });
  ctx.registry.requests.push({ environment: 'sandbox', method: 'POST', path: '/v1/charges', key: m.replay.testKey, idempotencyKey: key, body, status: first.status, json: first.json, repeats: [{ status: again.status, json: again.json }] });
  await h.settled(first.json.id);
  // Quiet: every delivery of the webhook merchant answered and recorded.
  await until('the webhook deliveries to succeed', async () => {
    const [r] = await sql<{ open: string; done: string }>(`select count(*) filter (where status <> 'succeeded')::text as open, count(*)::text as done from webhook_deliveries`);
    return r.open === '0' && Number(r.done) >= 3 * 2 + 2;
  });
});

afterAll(async () => {
  await rx?.close();
  await h?.close();
  await admin?.em.getConnection().execute(`drop database if exists ${dbName} with (force)`);
  await admin?.close();
});

test('on a sound run every invariant answers [] (and each is cheap: its cost per call is printed)', async () => {
  const { answers, ms } = await runAll();
  expect(answers).toEqual(clean());
  const [counts] = await sql<Record<string, string>>(
    `select (select count(*) from events)::text as events, (select count(*) from ledger_entries)::text as entries, (select count(*) from webhook_attempts)::text as attempts`,
  );
  console.log(`invariants on ${JSON.stringify(counts)}: ${JSON.stringify(ms)} ms`);
});

test('ledger: an unbalanced transfer is reported (then taken back)', async () => {
  const transfer = `txn_corrupt_${randomBase62(8)}:capture`;
  await sql(
    `insert into ledger_entries (transfer_id, account, kind, merchant_id, environment, currency, amount, resource_id, created_at) values (?, 'merchant_available', 'capture', ?, 'sandbox', 'GHS', 100, 'txn_corrupt', now())`,
    [transfer, m.ledger.id],
  );
  try {
    expect((await caught(ledgerBalanced, transfer)).join('\n')).toMatch(/unbalanced transfer/);
    // The entry without its balance row's move is a drift too.
    expect(await caught(balancesMatch, m.ledger.id)).toEqual([expect.stringMatching(/merchant_available: balance \d+, postings \d+/)]);
  } finally {
    await sql(`delete from ledger_entries where transfer_id = ?`, [transfer]);
  }
  expect(await ledgerBalanced.check(ctx)).toEqual([]);
});

test('balances: a balance row that drifted from its postings is reported (then put back)', async () => {
  await sql(`update account_balances set amount = amount + 7 where merchant_id = ? and account = 'merchant_available'`, [m.drift.id]);
  try {
    const lines = await caught(balancesMatch, m.drift.id);
    expect(lines).toEqual(
      expect.arrayContaining([expect.stringMatching(/merchant_available: balance \d+, postings \d+/), expect.stringMatching(/available is \d+, the payments' statuses say \d+/)]),
    );
  } finally {
    await sql(`update account_balances set amount = amount - 7 where merchant_id = ? and account = 'merchant_available'`, [m.drift.id]);
  }
  expect(await balancesMatch.check(ctx)).toEqual([]);
});

test('balances: a charge whose amount disagrees with a balanced ledger is reported, though the ledger check passes', async () => {
  const id = charges.objects[0];
  await sql(`update charges set merchant_amount = merchant_amount + 1 where id = ?`, [id]);
  try {
    expect(await ledgerBalanced.check(ctx)).toEqual([]);
    expect(await caught(balancesMatch, m.objects.id)).toEqual([expect.stringMatching(/: available is (\d+), the payments' statuses say (\d+)$/)]);
  } finally {
    await sql(`update charges set merchant_amount = merchant_amount - 1 where id = ?`, [id]);
  }
  expect(await balancesMatch.check(ctx)).toEqual([]);
});

test('events: a deleted event (a gap in the merchant log) is reported (then put back)', async () => {
  const [event] = await sql<Record<string, unknown>>(`select * from events where merchant_id = ? and sequence = 2`, [m.gap.id]);
  await sql(`delete from events where id = ?`, [event.id]);
  try {
    expect(await caught(eventSequencesGapless, m.gap.id)).toEqual(expect.arrayContaining([expect.stringMatching(/sandbox: sequences 1\.\.\d+ for \d+ distinct events \(a gap\)/)]));
  } finally {
    const columns = Object.keys(event);
    await sql(`insert into events (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`, columns.map((c) => event[c]));
  }
  expect(await eventSequencesGapless.check(ctx)).toEqual([]);
});

test('transitions: a forbidden transition (succeeded → failed) in a charge history is reported (then taken back)', async () => {
  const id = charges.transition[0];
  const [last] = await sql<{ body: string; sequence: string }>(`select body, sequence::text from events where resource_id = ? order by sequence desc limit 1`, [id]);
  const [{ next }] = await sql<{ next: string }>(`select last_sequence + 1 as next from event_counters where merchant_id = ? and environment = 'sandbox'`, [m.transition.id]);
  const body = JSON.parse(last.body) as { id: string; data: { status: string } };
  const eventId = `evt_corrupt_${randomBase62(8)}`;
  const forged = JSON.stringify({ ...body, id: eventId, type: 'transaction.failed', sequence: Number(next), data: { ...body.data, status: 'failed' } });
  await sql(
    `insert into events (id, merchant_id, environment, sequence, type, resource_type, resource_id, dedupe_key, body, created_at, dispatched_at) values (?, ?, 'sandbox', ?, 'transaction.failed', 'transaction', ?, ?, ?, now(), now())`,
    [eventId, m.transition.id, next, id, `${id}:transaction.failed`, forged],
  );
  await sql(`update event_counters set last_sequence = ? where merchant_id = ? and environment = 'sandbox'`, [next, m.transition.id]);
  try {
    expect(await eventSequencesGapless.check(ctx)).toEqual([]);
    expect(await caught(transitionsAllowed, id)).toEqual([
      `transaction ${id}: succeeded → failed (event transaction.failed, sequence ${next}) is not an allowed transition`,
      `transaction ${id}: status succeeded, but its last event says failed`,
    ]);
  } finally {
    await sql(`delete from events where id = ?`, [eventId]);
    await sql(`update event_counters set last_sequence = ? where merchant_id = ? and environment = 'sandbox'`, [Number(next) - 1, m.transition.id]);
  }
  expect(await transitionsAllowed.check(ctx)).toEqual([]);
});

test('deliveries: a request received whose attempt is not recorded, a request of no recorded delivery, one without a valid signature are reported', async () => {
  const [attempt] = await sql<Record<string, unknown>>(
    `select a.*, d.event_id from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.merchant_id = ? order by a.attempted_at limit 1`,
    [m.webhooks.id],
  );
  const eventId = attempt.event_id as string;
  delete attempt.event_id;
  await sql(`delete from webhook_attempts where delivery_id = ? and attempt = ?`, [attempt.delivery_id, attempt.attempt]);
  try {
    expect(await deliveriesRecorded.check(ctx)).toEqual([
      `delivery ${attempt.delivery_id} (event ${eventId}): attempt 1 received, not recorded`,
      `delivery ${attempt.delivery_id} (succeeded): attempt_count 1, 0 attempt row(s) numbered up to 0, 0 succeeded, the last none`,
    ]);
  } finally {
    const columns = Object.keys(attempt);
    await sql(`insert into webhook_attempts (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`, columns.map((c) => attempt[c]));
  }
  expect(await deliveriesRecorded.check(ctx)).toEqual([]);
  // Requests that arrive as real POSTs: one naming a delivery nobody recorded, signed with a secret the
  // receiver does not know; one naming no delivery, for an event that was never delivered.
  const [undelivered] = await sql<{ id: string }>(`select id from events where merchant_id = ? order by sequence limit 1`, [m.gap.id]);
  const post = (id: string, headers: Record<string, string>) =>
    fetch(`${rx.url}/forged`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ id, type: 'transaction.created' }) });
  expect((await post(eventId, { 'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'ab'.repeat(32)}`, 'x-service-delivery-id': 'dlv_forged', 'x-service-attempt': '1' })).status).toBe(200);
  expect((await post(undelivered.id, { 'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'cd'.repeat(32)}` })).status).toBe(200);
  try {
    expect(await deliveriesRecorded.check(ctx)).toEqual([
      expect.stringMatching(new RegExp(`^receiver 0: a request for event ${eventId} \\(delivery dlv_forged, attempt 1\\) at .* carried no valid signature$`)),
      expect.stringMatching(new RegExp(`^receiver 0: a request for event ${undelivered.id} at .* carried no valid signature$`)),
      `delivery dlv_forged (event ${eventId}): received, but no such delivery is recorded`,
      `event ${undelivered.id}: received 1 time(s), 0 attempt(s) recorded`,
    ]);
  } finally {
    rx.deliveries.splice(-2);
  }
});

test('open payments: a charge in flight has a running workflow; once the workflow is gone it is reported', async () => {
  expect(await openPaymentsWatched.check(ctx)).toEqual([]);
  await h.temporal.client.workflow.getHandle(pendingCharge).terminate('simulation-invariants test: an open charge without its workflow');
  expect(await openPaymentsWatched.check(ctx)).toEqual([`charge ${pendingCharge} is awaiting_action, its workflow is TERMINATED, and it is not marked NeedsAttention`]);
});

test('idempotent replays: the repeat answered the first answer; another answer is reported', async () => {
  expect(await idempotentReplays.check(ctx)).toEqual([]);
  const r = ctx.registry.requests[0];
  r.repeats!.push({ status: r.status, json: { ...(r.json as object), amount: 1 } }, { status: 409, json: r.json });
  expect(await idempotentReplays.check(ctx)).toEqual([
    expect.stringMatching(new RegExp(`^POST /v1/charges \\(sandbox, key ${r.idempotencyKey}\\): repeat 2 answered another body: `)),
    `POST /v1/charges (sandbox, key ${r.idempotencyKey}): repeat 3 answered 409, the first 200`,
  ]);
  r.repeats!.splice(1);
});

test('refunds within their charge: a refund that takes a charge past its amount is reported (then put back)', async () => {
  const chargeId = charges.objects[2];
  const refund = await h.request('sandbox', 'POST', '/v1/refunds', { key: m.objects.testKey, body: { charge: chargeId, reason: 'requested_by_customer' }, headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(refund.status).toBe(200);
  expect(await refundsWithinCharge.check(ctx)).toEqual([]);
  await sql(`update refunds set amount = amount + 1 where id = ?`, [refund.json.id]);
  try {
    const [c] = await sql<{ amount: string }>(`select amount::text as amount from charges where id = ?`, [chargeId]);
    expect(await refundsWithinCharge.check(ctx)).toEqual([`charge ${chargeId}: refunds and disputes commit ${Number(c.amount) + 1} of its ${c.amount}`]);
  } finally {
    await sql(`update refunds set amount = amount - 1 where id = ?`, [refund.json.id]);
  }
  await h.settled(chargeId);
});

test('one resource per Idempotency-Key: a burst whose answers name two objects, or answer otherwise than 409 idempotency_key_in_use, is reported', async () => {
  expect(await oneResourcePerKey.check(ctx)).toEqual([]);
  ctx.registry.bursts.push({ n: 7, idempotencyKey: 'k-1', answers: [{ status: 200, id: 'txn_a' }, { status: 409, code: 'idempotency_key_in_use' }, { status: 200, id: 'txn_a' }] });
  // The sandbox's `indeterminate` outcome: its stored answer is a 504 naming the charge.
  ctx.registry.bursts.push({ n: 9, idempotencyKey: 'k-3', answers: [{ status: 409, code: 'idempotency_key_in_use' }, { status: 504, code: 'partner_timeout', id: 'txn_c' }] });
  expect(await oneResourcePerKey.check(ctx)).toEqual([]);
  ctx.registry.bursts.push({ n: 8, idempotencyKey: 'k-2', answers: [{ status: 200, id: 'txn_a' }, { status: 200, id: 'txn_b' }, { status: 500, code: 'internal_error' }] });
  expect(await oneResourcePerKey.check(ctx)).toEqual(['step 8, key k-2: 2 objects made (txn_a, txn_b)', 'step 8, key k-2: answered 500 internal_error']);
  ctx.registry.bursts.length = 0;
});

test('payouts at once never overdraw: a burst that left available below zero is reported', async () => {
  expect(await payoutsNeverOverdraw.check(ctx)).toEqual([]);
  ctx.registry.balanceRaces.push({ n: 4, merchant: 'mer_a', before: 10_000, after: 1_000 }, { n: 5, merchant: 'mer_a', before: 10_000, after: -1_000 });
  expect(await payoutsNeverOverdraw.check(ctx)).toEqual(["step 5: merchant mer_a's available went from 10000 to -1000 with payouts sent at once"]);
  ctx.registry.balanceRaces.length = 0;
});
