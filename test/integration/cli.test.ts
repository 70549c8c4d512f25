/**
 * The admin command line (INTERFACE "Admin command line") against the suite's PostgreSQL and Temporal
 * dev server: the first test as its own process through tsx, exactly as `npm run cli` runs it; the
 * rest in this process (test/support/run-cli.ts), which answers the same code, stdout and stderr
 * (test/unit/cli-context.test.ts). Every command prints exactly one JSON object on stdout and nothing
 * else; errors go to stderr with exit code 1.
 */
import { chargeBody, idempotencyKey, startHarness, type Harness, PAYMENT_QUEUES } from '../support/harness';
import { cliEnv, execCli, type CliResult } from '../support/run-cli';
import { AUDIT_FLAGS } from '../support/cli-results';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
});
afterAll(() => h?.close());

/** The first test runs the CLI as its own process through tsx, exactly as `npm run cli` does; the rest in this process (the same code). */
let viaTsx = false;
const cli = (...args: string[]): Promise<CliResult> => execCli(args, cliEnv(h.taskQueue), { viaTsx });

/** Succeeds, and stdout is exactly one JSON object on one line. */
async function cliJson<T = any>(...args: string[]): Promise<T> {
  const result = await cli(...args);
  expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.indexOf('\n')).toBe(result.stdout.length - 1);
  const parsed = JSON.parse(result.stdout);
  expect(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)).toBe(true);
  return parsed as T;
}

/** Fails with exit code 1, nothing on stdout, and `reason` on stderr: why it was refused. */
async function cliFails(reason: RegExp, ...args: string[]): Promise<string> {
  const result = await cli(...args);
  expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 1, stdout: '' });
  expect({ args, stderr: result.stderr }).toEqual({ args, stderr: expect.stringMatching(reason) });
  return result.stderr;
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A usage error: `error: <reason>`, then the usage line of `command`. */
const usage = (reason: string, command: string) => new RegExp(`^error: ${literal(reason)}\nusage: cli ${literal(command)} `);

async function newMerchant(): Promise<{ id: string; test_key: string; live_key: string }> {
  return cliJson('merchants', 'create', '--name', `CLI Merchant ${Date.now()}`);
}

const createCharge = (key: string, body: Record<string, unknown>, env: 'sandbox' | 'live' = 'sandbox') =>
  h.request(env, 'POST', '/v1/charges', { key, body, headers: { 'Idempotency-Key': idempotencyKey() } });

test('merchants create prints the merchant and two working keys (through tsx, as npm run cli runs it)', async () => {
  viaTsx = true;
  const m = await newMerchant().finally(() => (viaTsx = false));
  expect(Object.keys(m).sort()).toEqual(['id', 'live_key', 'test_key']);
  expect(m.id).toMatch(/^mer_[0-9A-Za-z]+$/);
  expect(m.test_key).toMatch(/^svc_test_[0-9A-Za-z]+$/);
  expect(m.live_key).toMatch(/^svc_live_[0-9A-Za-z]+$/);

  const sandbox = await h.request('sandbox', 'GET', '/v1/balances', { key: m.test_key });
  expect(sandbox.status).toBe(200);
  expect(sandbox.json).toMatchObject({ object: 'balance', livemode: false });
  const live = await h.request('live', 'GET', '/v1/balances', { key: m.live_key });
  expect(live.status).toBe(200);
  expect(live.json).toMatchObject({ object: 'balance', livemode: true });
  const crossed = await h.request('live', 'GET', '/v1/balances', { key: m.test_key });
  expect(crossed.status).toBe(403);
  expect(crossed.json.error.code).toBe('environment_mismatch');

  // Keys carry every scope: a charge can be created and read.
  const created = await createCharge(m.test_key, chargeBody());
  expect(created.status).toBe(200);
  expect((await h.request('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key: m.test_key })).status).toBe(200);
  await h.settled(created.json.id);
});

test('keys create issues a key with exactly the given scopes', async () => {
  const m = await newMerchant();
  const key = await cliJson('keys', 'create', '--merchant', m.id, '--env', 'live', '--scopes', 'charges:read');
  expect(Object.keys(key).sort()).toEqual(['id', 'scopes', 'secret']);
  expect(key.id).toMatch(/^key_[0-9A-Za-z]+$/);
  expect(key.secret).toMatch(/^svc_live_[0-9A-Za-z]+$/);
  expect(key.scopes).toEqual(['charges:read']);

  const read = await h.request('live', 'GET', '/v1/charges/txn_000000000000000000000000', { key: key.secret });
  expect(read.status).toBe(404);
  expect(read.json.error.code).toBe('not_found');
  const balances = await h.request('live', 'GET', '/v1/balances', { key: key.secret });
  expect(balances.status).toBe(403);
  expect(balances.json.error.code).toBe('insufficient_scope');
  const write = await createCharge(key.secret, chargeBody(), 'live');
  expect(write.status).toBe(403);
  expect(write.json.error.code).toBe('insufficient_scope');
  const onSandbox = await h.request('sandbox', 'GET', '/v1/balances', { key: key.secret });
  expect(onSandbox.status).toBe(403);
  expect(onSandbox.json.error.code).toBe('environment_mismatch');

  const full = await cliJson('keys', 'create', '--merchant', m.id, '--env', 'test');
  expect(full.secret).toMatch(/^svc_test_/);
  expect(full.scopes).toEqual(expect.arrayContaining(['charges:read', 'charges:write', 'balances:read', 'events:read']));
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: full.secret })).status).toBe(200);

  const multi = await cliJson('keys', 'create', '--merchant', m.id, '--env', 'test', '--scopes', 'balances:read,events:read');
  expect(multi.scopes).toEqual(['balances:read', 'events:read']);
});

test('keys create refuses bad input', async () => {
  const m = await newMerchant();
  await Promise.all([
    cliFails(usage('--env must be test or live', 'keys create'), 'keys', 'create', '--merchant', m.id, '--env', 'prod'),
    cliFails(/^error: unknown scope\(s\): everything; known: charges:read /, 'keys', 'create', '--merchant', m.id, '--env', 'test', '--scopes', 'charges:read,everything'),
    // An empty list is an error, never a key with every scope (issue 20, from the security issue).
    cliFails(/^error: --scopes needs at least one scope /, 'keys', 'create', '--merchant', m.id, '--env', 'test', '--scopes', ''),
    cliFails(/^error: --scopes needs at least one scope /, 'keys', 'create', '--merchant', m.id, '--env', 'live', '--scopes', ' , '),
    cliFails(usage('--merchant is required', 'keys create'), 'keys', 'create', '--env', 'test'),
    cliFails(/^error: merchant mer_doesnotexist000000000000 does not exist\n$/, 'keys', 'create', '--merchant', 'mer_doesnotexist000000000000', '--env', 'test'),
  ]);
  const keys = await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*)::text as n from api_keys where merchant_id = ?`, [m.id]);
  expect(keys[0].n).toBe('2');
});

test('keys revoke: the key then gets 401, other keys keep working', async () => {
  const m = await newMerchant();
  const key = await cliJson('keys', 'create', '--merchant', m.id, '--env', 'test', '--scopes', 'balances:read');
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: key.secret })).status).toBe(200);

  const revoked = await cliJson('keys', 'revoke', key.id);
  expect(revoked.id).toBe(key.id);

  const after = await h.request('sandbox', 'GET', '/v1/balances', { key: key.secret });
  expect(after.status).toBe(401);
  expect(after.json.error.code).toBe('invalid_api_key');
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: m.test_key })).status).toBe(200);

  await cliFails(/^error: key key_doesnotexist000000000000 does not exist\n$/, 'keys', 'revoke', 'key_doesnotexist000000000000');
  await cliFails(usage('key id is required', 'keys revoke'), 'keys', 'revoke');
});

test('merchants verify allows live activity (live charges then meet 503 live_unavailable: no live rail yet)', async () => {
  const m = await newMerchant();
  const before = await createCharge(m.live_key, chargeBody(), 'live');
  expect(before.status).toBe(403);
  expect(before.json.error.code).toBe('identity_verification_required');

  const verified = await cliJson('merchants', 'verify', m.id, ...AUDIT_FLAGS);
  expect(verified.id).toBe(m.id);

  const after = await createCharge(m.live_key, chargeBody(), 'live');
  expect(after.status).toBe(503);
  expect(after.json.error.code).toBe('live_unavailable');

  await cliFails(/^error: merchant mer_doesnotexist000000000000 does not exist\n$/, 'merchants', 'verify', 'mer_doesnotexist000000000000', ...AUDIT_FLAGS);
});

describe('charges reverse', () => {
  interface LedgerRow {
    transfer_id: string;
    account: string;
    kind: string;
    amount: string;
    created_at: Date;
  }
  const ledger = (chargeId: string) =>
    h.orm.em
      .getConnection()
      .execute<LedgerRow[]>(`select transfer_id, account, kind, amount::text as amount, created_at from ledger_entries where resource_id = ? order by transfer_id, account`, [chargeId]);

  test('reverses a succeeded charge: status, event, balance, reversing entries', async () => {
    const m = await newMerchant();
    const created = await createCharge(m.test_key, chargeBody({ metadata: { order: 'R-1', zeta: 1, alpha: 2 } }));
    expect(created.status).toBe(200);
    const id: string = created.json.id;
    expect((await h.settled(id)).status).toBe('succeeded');
    const merchantAmount: number = created.json.merchant_amount;
    expect((await h.request('sandbox', 'GET', '/v1/balances', { key: m.test_key })).json.available).toEqual([{ currency: 'GHS', amount: merchantAmount }]);
    const before = await ledger(id);

    const reversed = await cliJson('charges', 'reverse', id, '--reason', 'customer refunded outside', '--operator', 'ops:kofi');
    expect(reversed).toMatchObject({ id, object: 'charge', status: 'reversed', amount: 15000, merchant_amount: merchantAmount });
    expect(reversed.metadata).toEqual({ order: 'R-1', zeta: 1, alpha: 2 });
    const audit = await cliJson('audit', 'list', '--payment', id);
    expect(audit.data).toEqual([
      expect.objectContaining({ payment_id: id, action: 'charge.reverse', operator: 'ops:kofi', reason: 'customer refunded outside', state_before: expect.objectContaining({ status: 'succeeded' }), state_after: expect.objectContaining({ status: 'reversed' }) }),
    ]);

    const fetched = await h.request('sandbox', 'GET', `/v1/charges/${id}`, { key: m.test_key });
    expect(fetched.json).toEqual(reversed);

    const events = await h.request('sandbox', 'GET', '/v1/events?after_sequence=0', { key: m.test_key });
    expect(events.json.data.map((e: { type: string; sequence: number }) => [e.sequence, e.type])).toEqual([
      [1, 'transaction.created'],
      [2, 'transaction.succeeded'],
      [3, 'transaction.reversed'],
    ]);
    expect(events.json.data[2].data).toEqual(fetched.json);

    const balances = await h.request('sandbox', 'GET', '/v1/balances', { key: m.test_key });
    expect(balances.json).toMatchObject({ available: [{ currency: 'GHS', amount: 0 }], pending: [{ currency: 'GHS', amount: 0 }] });

    // Originals untouched; the reversal is its exact opposite; every transfer balances.
    const after = await ledger(id);
    const reversal = after.filter((r) => r.kind === 'capture_reversal');
    expect(after.filter((r) => r.kind !== 'capture_reversal')).toEqual(before);
    const capture = before.filter((r) => r.kind === 'capture');
    expect(capture.length).toBeGreaterThan(0);
    expect(reversal.map((r) => [r.account, Number(r.amount)]).sort()).toEqual(capture.map((r) => [r.account, -Number(r.amount)]).sort());
    expect(reversal.every((r) => r.transfer_id === `${id}:capture_reversal`)).toBe(true);
    const sums = new Map<string, number>();
    for (const r of after) sums.set(r.transfer_id, (sums.get(r.transfer_id) ?? 0) + Number(r.amount));
    expect([...sums.values()].every((s) => s === 0)).toBe(true);

    // A second reversal is refused and changes nothing.
    await cliFails(/reversed/, 'charges', 'reverse', id, '--reason', 'again');
    expect(await ledger(id)).toEqual(after);
  });

  test('refuses a failed charge: exit 1, message on stderr, nothing changes', async () => {
    const m = await newMerchant();
    const created = await createCharge(m.test_key, chargeBody({ metadata: { sandbox_outcome: 'declined' } }));
    const id: string = created.json.id;
    expect((await h.settled(id)).status).toBe('failed');
    const ledgerBefore = await ledger(id);

    await cliFails(new RegExp(`^error: .*${id}`), 'charges', 'reverse', id, '--reason', 'try');

    expect((await h.request('sandbox', 'GET', `/v1/charges/${id}`, { key: m.test_key })).json).toMatchObject({ status: 'failed', failure_class: 'declined' });
    const events = await h.request('sandbox', 'GET', '/v1/events?after_sequence=0', { key: m.test_key });
    expect(events.json.data.map((e: { type: string }) => e.type)).toEqual(['transaction.created', 'transaction.failed']);
    expect(await ledger(id)).toEqual(ledgerBefore);
  });

  test('refuses an unknown charge', async () => {
    await cliFails(/^error: .*does not exist/, 'charges', 'reverse', 'txn_doesnotexist000000000000', '--reason', 'x');
    await cliFails(usage("charge id is required (or --query 'a Temporal list query' for a dry run)", 'charges reverse'), 'charges', 'reverse');
    await cliFails(usage('--reason is required (it goes to the audit log)', 'charges reverse'), 'charges', 'reverse', 'txn_doesnotexist000000000000');
  });
});

test('unknown or incomplete commands exit 1 with usage on stderr', async () => {
  await Promise.all([
    cliFails(usage('unknown command "frobnicate"', '[options] [command]'), 'frobnicate'),
    cliFails(usage('unknown command "merchants delete"', 'merchants'), 'merchants', 'delete', 'mer_x'),
    // No command: the help, on stderr.
    cliFails(/^Usage: cli \[options\] \[command\]\n[\s\S]*\nCommands:\n/),
    cliFails(usage('--name is required', 'merchants create'), 'merchants', 'create'),
  ]);
});
