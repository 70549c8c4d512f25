import type { EntityManager } from '@mikro-orm/postgresql';
import { lastTaskCompletedBy, lockWaiters, until } from '../support/crash-probes';
import { chargeBody, idempotencyKey, startHarness, type ApiResponse, type Harness, type TestMerchant } from '../support/harness';
import { allEvents, expectBalancesMatchPostings, expectSucceededLedger, ledgerRows } from '../support/ledger-rows';
import { killAllWorkers, startWorkerChild, type WorkerChild } from '../support/worker-child';

/**
 * Crash recovery with the real worker process (workers/main.ts): SIGKILL it while charges are in
 * flight, start a new one, and check that every charge still ends exactly once: one ledger set, one
 * created and one succeeded event, sequences 1..2N without gap, balances right (and every balance row
 * equal to its account's postings). The API runs in this process with no worker of its own.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await killAllWorkers();
  await h?.close();
});
// A failed test must not leave its worker polling into the next one.
afterEach(() => killAllWorkers());

const startWorker = () => startWorkerChild({ taskQueue: h.taskQueue });

interface ChargeView {
  id: string;
  status: string;
  amount: number;
  merchant_amount: number;
  fee: { platform: number; tax: number };
}

function create(merchant: TestMerchant, key: string, amount: number): Promise<ApiResponse> {
  return h.request('sandbox', 'POST', '/v1/charges', {
    key: merchant.testKey,
    body: chargeBody({ amount, reference: `crash-${amount}` }),
    headers: { 'Idempotency-Key': key },
  });
}

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return h.orm.em.getConnection().execute<T[]>(query, params);
}

/** A transaction of the test's own, holding locks until `release()`. */
async function holdLocks(statements: Array<[string, unknown[]]>): Promise<{ em: EntityManager; release(): Promise<void> }> {
  const em = h.orm.em.fork() as EntityManager;
  await em.begin();
  for (const [query, params] of statements) await em.execute(query, params);
  let released = false;
  return {
    em,
    async release() {
      if (released) return;
      released = true;
      await em.rollback();
    },
  };
}

/**
 * The invariants after every charge of the merchant has finished: each succeeded, posted exactly the
 * transfers hold, hold_void and capture once, logged exactly one created and one succeeded event; the
 * merchant's sequences are 1..2N; available = sum of merchant amounts, pending 0; every balance row
 * equals the sum of its account's ledger entries.
 */
async function expectExactlyOnce(merchant: TestMerchant, charges: ChargeView[]): Promise<void> {
  const ids = charges.map((c) => c.id);
  expect(new Set(ids).size).toBe(charges.length);

  // Results of the workflows themselves (long polls, no polling loop).
  const finals = await Promise.all(ids.map((id) => h.settled(id)));
  expect(finals.map((f) => [f.id, f.status])).toEqual(ids.map((id) => [id, 'succeeded']));

  const rows = await sql<{ id: string; status: string }>(`select id, status from charges where merchant_id = ? order by id`, [merchant.id]);
  expect(rows).toEqual([...ids].sort().map((id) => ({ id, status: 'succeeded' })));

  const ledger = await ledgerRows(h, merchant.id);
  expect(new Set(ledger.map((r) => r.resource_id))).toEqual(new Set(ids));
  for (const charge of charges) expectSucceededLedger(ledger, charge);

  const log = await allEvents(h, merchant);
  expect(log.map((e) => e.sequence)).toEqual(Array.from({ length: 2 * charges.length }, (_, i) => i + 1));
  expect(new Set(log.map((e) => e.id)).size).toBe(log.length);
  for (const id of ids) {
    expect(log.filter((e) => e.resource_id === id).map((e) => e.type)).toEqual(['transaction.created', 'transaction.succeeded']);
  }

  const balances = await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey });
  expect(balances.json).toMatchObject({
    available: [{ currency: 'GHS', amount: charges.reduce((sum, c) => sum + c.merchant_amount, 0) }],
    pending: [{ currency: 'GHS', amount: 0 }],
  });
  await expectBalancesMatchPostings(h.orm, merchant.id);

  // One workflow per charge, all completed.
  const descriptions = await Promise.all(ids.map((id) => h.temporal.client.workflow.getHandle(id).describe()));
  expect(descriptions.map((d) => [d.workflowId, d.status.name])).toEqual(ids.map((id) => [id, 'COMPLETED']));
}

test('SIGKILL of the worker while 20 accepted charges wait for the rail: a new worker finishes each exactly once', async () => {
  const merchant = await h.merchant();
  const first = await startWorker();

  const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => create(merchant, idempotencyKey(), 10_000 + i * 101)));
  await first.kill();
  expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
  const charges = responses.map((r) => r.json as ChargeView);
  expect(charges.every((c) => c.status === 'awaiting_action')).toBe(true);

  // The crash hit charges still waiting for their three-second completion.
  const open = (await sql<{ id: string }>(`select id from charges where merchant_id = ? and status = 'awaiting_action'`, [merchant.id])).map((r) => r.id);
  expect(open.length).toBeGreaterThan(0);

  const second = await startWorker();
  await expectExactlyOnce(merchant, charges);
  // Those open at the crash were finished by the new worker.
  for (const id of open) expect(await lastTaskCompletedBy(h, id)).toBe(second.identity);
  await second.stop();
  expect(await second.exited).toEqual({ code: 0, signal: null });
});

/**
 * Backends of other sessions that wait, blocked by `blocker` (a backend pid), while inserting an event,
 * and that hold write locks on every table a state change writes: their projection is written, and
 * the one statement of the state change (issue 48: balance rows, counter increment, ledger entries and
 * the event, src/persistence/events/event-log.ts) has taken its balance rows and counter and waits at
 * the event's unique key; all uncommitted. One snapshot of pg_stat_activity and pg_locks.
 */
async function eventInsertsWaitingOn(blocker: number): Promise<number[]> {
  const rows = await sql<{ pid: number }>(
    `select a.pid from pg_stat_activity a
     where a.pid <> pg_backend_pid() and a.wait_event_type = 'Lock' and a.query ilike 'with moved as (%insert into account_balances%'
       and ? = any(pg_blocking_pids(a.pid))
       and (select count(distinct c.relname) from pg_locks l join pg_class c on c.oid = l.relation
            where l.pid = a.pid and l.granted and l.mode = 'RowExclusiveLock'
              and c.relname in ('charges', 'ledger_entries', 'account_balances', 'event_counters', 'events')) = 5`,
    [blocker],
  );
  return rows.map((r) => Number(r.pid));
}

test('SIGKILL of the worker in the middle of the succeed transaction, after its counter increment and inserts: nothing half-written, nothing twice', async () => {
  // One charge per merchant: a merchant's counter row admits one transaction at a time, and each
  // charge's succeed transaction is to get all the way to its event insert.
  const merchants = await Promise.all(Array.from({ length: 3 }, () => h.merchant()));
  const first = await startWorker();
  const responses = await Promise.all(merchants.map((m, i) => create(m, idempotencyKey(), 20_000 + i * 101)));
  expect(responses.map((r) => r.status)).toEqual(merchants.map(() => 200));
  const charges = responses.map((r) => r.json as ChargeView);

  // The test's own uncommitted events row holds each succeed event's dedupe key (sequence -1 keeps
  // clear of the real sequences): each succeed transaction writes the projection, its ledger entries
  // and balance rows, increments the counter, then waits on the unique index at its event insert.
  // A charge that already succeeded inserts nothing here and is not counted as blocked.
  const blocker = await holdLocks(
    charges.map((c, i): [string, unknown[]] => [
      `insert into events (id, merchant_id, environment, sequence, type, resource_type, resource_id, dedupe_key, body, created_at)
       values (?, ?, 'sandbox', -1, 'transaction.succeeded', 'transaction', ?, ?, '{}', now()) on conflict (dedupe_key) do nothing`,
      [`evt_blocker${i}`, merchants[i].id, c.id, `${c.id}:transaction.succeeded`],
    ]),
  );
  let blocked: string[];
  let killedBackends: number[];
  try {
    const [{ pid: blockerPid }] = await blocker.em.execute<{ pid: number }[]>(`select pg_backend_pid() as pid`);
    blocked = (
      await blocker.em.execute<{ resource_id: string }[]>(`select resource_id from events where id like 'evt_blocker%' and sequence = -1 order by resource_id`)
    ).map((r) => r.resource_id);
    expect(blocked.length).toBeGreaterThan(0);
    // The worker's transactions time out on the lock (WORKER_DB_TIMEOUTS) and retry, so the kill
    // follows the snapshot in which every blocked one waits at its event insert.
    await until(`${blocked.length} succeed transactions wait at their event insert`, async () => {
      killedBackends = await eventInsertsWaitingOn(Number(blockerPid));
      return killedBackends.length >= blocked.length;
    }, 200);
    await first.kill();
  } finally {
    await blocker.release();
  }

  // The killed worker's backends end with its connections (a backend blocked on a lock notices the
  // closed socket once the wait ends); their transactions never committed.
  await until('the killed worker\'s backends are gone', async () => {
    const alive = await sql(`select pid from pg_stat_activity where pid in (select jsonb_array_elements_text(?::jsonb)::int)`, [JSON.stringify(killedBackends!)]);
    return alive.length === 0;
  }, 200);
  for (const [i, charge] of charges.entries()) {
    if (!blocked.includes(charge.id)) continue;
    const merchant = merchants[i];
    expect(await sql(`select status from charges where id = ?`, [charge.id])).toEqual([{ status: 'awaiting_action' }]);
    expect((await ledgerRows(h, merchant.id)).map((r) => r.transfer_id)).toEqual([`${charge.id}:hold`, `${charge.id}:hold`]);
    expect(await sql(`select last_sequence::int as n from event_counters where merchant_id = ?`, [merchant.id])).toEqual([{ n: 1 }]);
    expect(await sql(`select type from events where merchant_id = ?`, [merchant.id])).toEqual([{ type: 'transaction.created' }]);
    await expectBalancesMatchPostings(h.orm, merchant.id);
  }

  const second = await startWorker();
  for (const [i, charge] of charges.entries()) await expectExactlyOnce(merchants[i], [charge]);
  for (const id of blocked) expect(await lastTaskCompletedBy(h, id)).toBe(second.identity);
  await second.stop();
  expect(await second.exited).toEqual({ code: 0, signal: null });
});

test('creates with no worker running all answer 200; SIGKILL of the worker while they are in flight: a new worker finishes each exactly once', async () => {
  // Write first, then start: a create answers once its charge is written and its workflow started,
  // with no worker at all. Merchant B's charges then block in their succeed transactions, because
  // the test holds B's event counter row; the first worker is killed there.
  const a = await h.merchant();
  const b = await h.merchant();
  const issue = (merchant: TestMerchant, n: number, base: number) =>
    Array.from({ length: n }, (_, i) => {
      const key = idempotencyKey();
      const amount = base + i * 101;
      return { merchant, key, amount, first: create(merchant, key, amount) };
    });
  const requestsA = issue(a, 4, 30_000);
  const requestsB = issue(b, 8, 40_000);
  const all = [...requestsA, ...requestsB];
  const answers = await Promise.all(all.map((r) => r.first));
  expect(answers.map((r) => r.status)).toEqual(all.map(() => 200));
  const views = answers.map((r) => r.json as ChargeView);
  expect(views.map((v) => v.status)).toEqual(all.map(() => 'awaiting_action'));
  expect(new Set(views.map((v) => v.id)).size).toBe(all.length);
  // Each written at once (with its hold and created event), its workflow started and waiting for a worker.
  expect((await sql<{ id: string }>(`select id from charges where merchant_id in (?, ?)`, [a.id, b.id])).length).toBe(all.length);
  const described = await Promise.all(views.map((v) => h.temporal.client.workflow.getHandle(v.id).describe()));
  expect(described.map((d) => d.status.name)).toEqual(all.map(() => 'RUNNING'));

  const locks = await holdLocks([[`select last_sequence from event_counters where merchant_id = ? and environment = 'sandbox' for update`, [b.id]]]);
  let firstWorker: WorkerChild | undefined;
  try {
    firstWorker = await startWorker();
    // A's charges finish on the first worker, while B's succeed transactions wait on the counter row.
    const idsA = views.slice(0, requestsA.length).map((v) => v.id);
    expect((await Promise.all(idsA.map((id) => h.settled(id)))).map((c) => c.status)).toEqual(idsA.map(() => 'succeeded'));
    await until('B transitions wait on the event counter', async () => (await lockWaiters(h, 'event_counters')) >= 1, 200);
    await firstWorker.kill();
    await locks.release();
    expect(await sql(`select id from charges where merchant_id = ? and status <> 'awaiting_action'`, [b.id])).toEqual([]);

    const secondWorker = await startWorker();
    // A repeat of each create gives the same bytes, marked replayed.
    for (const [i, r] of all.entries()) {
      const repeat = await create(r.merchant, r.key, r.amount);
      expect([repeat.status, repeat.headers.get('idempotent-replayed'), repeat.text]).toEqual([200, 'true', answers[i].text]);
      expect(views[i].amount).toBe(r.amount);
    }
    await expectExactlyOnce(a, views.slice(0, requestsA.length));
    await expectExactlyOnce(b, views.slice(requestsA.length));
    // One run per charge: the one the API started.
    const after = await Promise.all(views.map((v) => h.temporal.client.workflow.getHandle(v.id).describe()));
    expect(after.map((d) => d.runId)).toEqual(described.map((d) => d.runId));
    await secondWorker.stop();
    expect(await secondWorker.exited).toEqual({ code: 0, signal: null });
  } finally {
    await locks.release();
    await firstWorker?.kill();
  }
});
