/**
 * (System tier since issue 44's fourth part: it starts whole engines of its own; npm test keeps the
 * engine's use in simulation-short and the defect catalogue.)
 * The simulation's engine (src/simulation/engine.ts) on its own: a database of its own with the one
 * clock, Temporal's time-skipping test server, the real worker and API. Each control of SimContext is
 * used once and shown to act; two engines of one seed mint the same first ids, the second on a copy
 * of a template database (src/simulation/sim-database.ts `createSimTemplate`: what the system tier's
 * simulation files and `npm run simulate` run every session on), whose clock holds as a migrated one's.
 */
import { createMerchant, verifyMerchant } from '../../src/persistence/merchants/merchant-store';
import { Runtime } from '@temporalio/worker';
import { startEngine, type Engine } from '../../src/simulation/engine';
import { sdkLinesSeen } from '../../src/simulation/sdk-faults';
import { waitUntilQuiet } from '../../src/simulation/quiet';
import { createSimTemplate, simServerUrl, type SimTemplate } from '../../src/simulation/sim-database';

const SEED = 4242;
const DAY = 86_400_000;
let engine: Engine;
let template: SimTemplate | undefined;
let firstIds: string[];
let key: string;
const timings: Record<string, number> = {};

const timed = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  try {
    return await run();
  } finally {
    timings[name] = Math.round(performance.now() - started);
  }
};

const sql = <T extends object[]>(text: string, params: unknown[] = []) => engine.orm.em.getConnection().execute<T>(text, params);

const body = (reference: string) => ({
  amount: 15000,
  currency: 'GHS',
  channel: 'mobile_money',
  momo_network_id: '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01',
  customer: { identifier: '233241234567', name: 'Ama Mensah' },
  reference,
  metadata: {},
});

/** A sandbox charge through the API, then settle, the sandbox's 3 s (a time jump), settle: its status. */
async function chargeToTheEnd(reference: string): Promise<{ id: string; status: string }> {
  const created = await engine.api('sandbox', 'POST', '/v1/charges', { key, body: body(reference), idempotencyKey: `idem-${reference}` });
  expect(created.status).toBe(200);
  await engine.settle();
  await engine.timeJump(10_000);
  await engine.settle();
  const read = await engine.api('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key });
  return { id: created.json.id, status: read.json.status };
}

beforeAll(async () => {
  engine = await timed('engine start', () => startEngine({ seed: SEED }));
  const m = await createMerchant(engine.orm, 'Simulated merchant');
  firstIds = [m.id, m.testKey.id, m.liveKey.id];
  key = m.testKey.secret;
}, 60_000);

afterAll(async () => {
  await engine?.close();
  await template?.drop();
  console.log(`simulation engine timings (ms): ${JSON.stringify(timings)}`);
});

test('a sandbox charge through the API reaches succeeded after settle and a time jump', async () => {
  const charge = await timed('first charge', () => chargeToTheEnd('sim-1'));
  expect(charge.status).toBe('succeeded');
  // The engine's database is its own: the charge is there, nowhere else.
  const [row] = await sql<Array<{ status: string }>>(`select status from charges where id = ?`, [charge.id]);
  expect(row.status).toBe('succeeded');
});

test('webhook receivers check the signatures of the deliveries they get, and answer as their mode says', async () => {
  const endpoint = await engine.api('sandbox', 'POST', '/v1/webhook-endpoints', { key, body: { url: engine.receivers.url(0), subscribed_events: [] } });
  expect(endpoint.status).toBe(201);
  expect((await chargeToTheEnd('sim-hooks')).status).toBe('succeeded');
  const ok = engine.receivers.received().filter((r) => r.receiver === 0);
  expect(ok.length).toBeGreaterThanOrEqual(2); // created and succeeded at least
  expect(ok.every((r) => r.signatureOk && r.eventId.startsWith('evt_'))).toBe(true);
  engine.receivers.setMode(0, 'fail_500');
  const before = engine.receivers.received().length;
  await chargeToTheEnd('sim-hooks-500');
  const failed = engine.receivers.received().slice(before);
  expect(failed.length).toBeGreaterThanOrEqual(1);
  expect(failed.every((r) => r.answered === 500 && r.signatureOk)).toBe(true);
  engine.receivers.setMode(0, 'ok');
});

test('a time jump of 2 days moves Date.now(), the test server, SQL now() and a new row\'s default created_at together', async () => {
  const before = { date: Date.now(), server: await engine.now(), sql: await sqlNow() };
  await timed('time jump 2 days', () => engine.timeJump(2 * DAY));
  const after = { date: Date.now(), server: await engine.now(), sql: await sqlNow() };
  for (const clock of ['date', 'server', 'sql'] as const) {
    expect(after[clock] - before[clock]).toBeGreaterThan(2 * DAY - 5_000);
    expect(after[clock] - before[clock]).toBeLessThan(2 * DAY + 60_000);
  }
  expect(Math.abs(after.date - after.server)).toBeLessThan(5_000);
  expect(Math.abs(after.sql - after.server)).toBeLessThan(5_000);
  // A column default (created_at default now(), made by the migrations) follows the offset too.
  const m = await createMerchant(engine.orm, 'Created after the jump');
  const [row] = await sql<Array<{ at: number; clock: number }>>(
    `select extract(epoch from created_at) * 1000 as at, extract(epoch from clock_timestamp()) * 1000 as clock from merchants where id = ?`,
    [m.id],
  );
  expect(Math.abs(Number(row.at) - after.server)).toBeLessThan(10_000);
  expect(Math.abs(Number(row.clock) - after.server)).toBeLessThan(10_000);
  const [defaulted] = await sql<Array<{ at: number }>>(`insert into sim_clock_probe default values returning extract(epoch from at) * 1000 as at`).catch(async () => {
    await sql(`create table sim_clock_probe (at timestamptz not null default now())`);
    return sql<Array<{ at: number }>>(`insert into sim_clock_probe default values returning extract(epoch from at) * 1000 as at`);
  });
  expect(Math.abs(Number(defaulted.at) - after.server)).toBeLessThan(10_000);
});

async function sqlNow(): Promise<number> {
  const [row] = await sql<Array<{ ms: number }>>(`select extract(epoch from now()) * 1000 as ms`);
  return Number(row.ms);
}

test('after cutDbConnections a request still works', async () => {
  const cut = await engine.orm.em.getConnection().execute<Array<{ n: number }>>(`select count(*)::int as n from pg_stat_activity where datname = current_database()`);
  expect(cut[0].n).toBeGreaterThanOrEqual(2);
  await engine.cutDbConnections();
  await engine.settle(); // the engine's own pool was drained of the cut connections
  expect(await sqlNow()).toBeGreaterThan(0);
  // A request that borrows a pooled connection the cut killed answers 503 (the error envelope, retry
  // later); the pool drops that connection, and the next requests get new ones.
  const statuses: number[] = [];
  for (let i = 0; i < 4 && statuses.at(-1) !== 200; i++) statuses.push((await engine.api('sandbox', 'GET', '/v1/charges', { key })).status);
  expect(statuses.at(-1)).toBe(200);
  expect(statuses.slice(0, -1).every((s) => s === 503)).toBe(true);
});

test('after restartWorker a charge started on the old worker completes on the new one (its task moved off the old worker\'s sticky queue)', async () => {
  const created = await engine.api('sandbox', 'POST', '/v1/charges', { key, body: body('sim-restart'), idempotencyKey: 'idem-sim-restart' });
  expect(created.status).toBe(200);
  await engine.settle(); // its workflow waits for the sandbox's 3 s on the old worker
  await timed('restart worker', () => engine.restartWorker());
  await engine.timeJump(10_000);
  await engine.settle();
  expect((await engine.api('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key })).json.status).toBe('succeeded');
  // The worker keeps a workflow cache: the charge's next task went to the stopped worker's sticky queue.
  expect(engine.rescuedStickyTasks()).toBeGreaterThanOrEqual(1);
  expect((await chargeToTheEnd('sim-after-restart')).status).toBe('succeeded');
});

test('the SDK\'s own faults are counted: sdk-core\'s log lines reach the simulation\'s logger, and "This is an SDK bug" is one', async () => {
  // Each worker started (two by now: the restart above) had sdk-core warn that this server is old.
  expect(sdkLinesSeen()).toBeGreaterThan(0);
  expect(engine.sdkFaults()).toEqual([]);
  Runtime.instance().logger.error('There should not be any outgoing commands or messages when preparing a completion response if the activation was only an eviction. This is an SDK bug.');
  expect(engine.sdkFaults()).toHaveLength(1);
});

test('failActivity: the activity fails the times asked, then the charge completes', async () => {
  engine.failActivity('applyChargeTransition', 2);
  let calls = 0;
  const stop = engine.hooks.afterActivity('applyChargeTransition', (result) => {
    calls++;
    return result;
  });
  const charge = await chargeToTheEnd('sim-fail');
  expect(engine.hooks.pendingFailures()).toEqual({});
  expect(charge.status).toBe('succeeded');
  // The failures were taken (a failure is consumed only by a call), then a call succeeded.
  expect(calls).toBeGreaterThanOrEqual(1);
  stop();
});

test('a live charge goes through the fake partner and its callback; setBehaviour picks what the partner plays', async () => {
  const m = await createMerchant(engine.orm, 'Live merchant');
  await verifyMerchant(engine.orm, m.id);
  const live = (reference: string) =>
    engine.api('live', 'POST', '/v1/charges', { key: m.liveKey.secret, body: body(reference), idempotencyKey: `idem-${reference}` });
  const normal = await live('sim-live-1');
  expect(normal.status).toBe(200);
  await engine.settle(); // waits for the partner's approval and callback (real-time timers of the fake)
  expect(await liveStatus(normal.json.id, m.liveKey.secret)).toBe('succeeded');

  // `late`: no answer until the next time jump, then SUCCESSFUL with its callback.
  engine.partner.setBehaviour('late');
  const late = await live('sim-live-late');
  await engine.settle();
  expect(await liveStatus(late.json.id, m.liveKey.secret)).toBe('awaiting_action'); // the customer's approval, as the partner says
  await engine.timeJump(60_000);
  await engine.settle();
  expect(await liveStatus(late.json.id, m.liveKey.secret)).toBe('succeeded');

  engine.partner.setBehaviour('never');
  const never = await live('sim-live-2');
  expect(never.status).toBe(200);
  await engine.settle();
  const [ref] = await sql<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [never.json.id]);
  expect(engine.fakePartner.transaction('collection', ref.reference_id)?.behaviour).toBe('no_answer');
  engine.partner.setBehaviour('normal');
  const csv = await engine.partner.statement(new Date(await engine.now()).toISOString().slice(0, 10), 1);
  expect(csv.split('\n').filter((l) => l.trim()).length).toBeGreaterThanOrEqual(4); // header and the three charges
});

const liveStatus = async (id: string, liveKey: string): Promise<string> => (await engine.api('live', 'GET', `/v1/charges/${id}`, { key: liveKey })).json.status;

test('settle fails with a clear message naming what is busy', async () => {
  const created = await engine.api('sandbox', 'POST', '/v1/charges', { key, body: body('sim-busy'), idempotencyKey: 'idem-sim-busy' });
  expect(created.status).toBe(200);
  await timed('busy: settle', () => engine.settle()); // the charge waits for the sandbox's 3 s: quiet, so the jump is immediate
  engine.failActivity('applyChargeTransition', 1000);
  // Just past the sandbox's 3 s: once the failing transition runs, the rest of a jump goes at real-time pace.
  await timed('busy: jump', () => engine.timeJump(3_500));
  await expect(timed('busy: settle bound 3 s', () => settleWithin(3_000))).rejects.toThrow(/^the engine did not settle within 3 s; still busy: .*(applyChargeTransition|workflow txn_\w+: a workflow task under way)/);
  engine.failActivity('applyChargeTransition', 0);
});

async function settleWithin(boundMs: number): Promise<void> {
  await waitUntilQuiet({ orm: engine.orm, client: engine.temporal.client, now: () => engine.now() }, { boundMs });
}

test('two engines of one seed mint the same first ids, the second on a copy of a template database, whose clock holds', async () => {
  await engine.close();
  template = await timed('template database', () => createSimTemplate(simServerUrl()));
  const again = await timed('second engine start (a copy of the template)', () => startEngine({ seed: SEED, template }));
  engine = again;
  const m = await createMerchant(again.orm, 'Simulated merchant');
  expect([m.id, m.testKey.id, m.liveKey.id]).toEqual(firstIds);
  // The copy's now(), clock_timestamp() and column defaults follow the clock's offset (the search_path,
  // which the copy does not carry, set again; the defaults and functions copied with the tables).
  await sql(`update sim_clock set offset_ms = ?`, [2 * DAY]);
  // merchants.created_at: `default now()`, made by the migrations in the template.
  const [row] = await sql<Array<{ at: number; now: number; clock: number; real: number }>>(
    `insert into merchants (id, name) values ('m_sim_clock_probe', 'A row defaulted 2 simulated days later')
     returning extract(epoch from created_at) * 1000 as at, extract(epoch from now()) * 1000 as now,
       extract(epoch from clock_timestamp()) * 1000 as clock, extract(epoch from pg_catalog.clock_timestamp()) * 1000 as real`,
  );
  for (const clock of [row.at, row.now, row.clock]) expect(Math.abs(Number(clock) - Number(row.real) - 2 * DAY)).toBeLessThan(60_000);
  await sql(`delete from merchants where id = 'm_sim_clock_probe'`);
}, 120_000);
