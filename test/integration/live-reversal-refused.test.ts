import type { FakePartner } from '../../src/rail/fake-partner';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { runCli } from '../support/run-cli';

/**
 * Issue 43, "live payouts reverse changes only the ledger": the partner's protocol has no call that
 * takes a transfer back and no REVERSED status, so nothing in its records can show a live payout's
 * money went back, and a live payout reversal is refused whatever the operator says
 * (src/domain/live-reversal.ts; docs/partner-rail.md, "Reversals in live"). Nothing changes: the
 * payment, the ledger, the balances, the events, the audit log. A live charge's reversal is a refund
 * through the partner since issue 45 (test/integration/live-refunds.test.ts). Sandbox reversals are
 * unchanged (test/integration/payout-operator-cli.test.ts, balance-transactions.test.ts).
 */

let partner: PartnerHarness;
let fake: FakePartner;
let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES, fake: { approveAfterMs: 100 } });
  ({ h, fake } = partner);
  m = await h.merchant({ verified: true });
  await fundMerchant(h, m.id, 100_000, 'GHS', 'live');
});
afterAll(async () => {
  await partner?.close(); // `ledger check` over the whole database first
});

const sql = <T>(query: string, params: unknown[]) => h.orm.em.getConnection().execute<T[]>(query, params);

/** Everything a reversal could touch, for one payment of the merchant. */
async function footprint(kind: 'charges' | 'payouts', id: string) {
  return {
    payment: (await h.request('live', 'GET', `/v1/${kind}/${id}`, { key: m.liveKey })).json.status,
    ledger: await sql<{ account: string; amount: string }>(`select transfer_id, account, amount::text from ledger_entries where resource_id = ? order by transfer_id, account`, [id]),
    balances: await balanceRows(h, m.id, 'GHS', 'live'),
    events: (await sql<{ type: string }>(`select type from events where resource_id = ? order by sequence`, [id])).map((e) => e.type),
    audit: (await sql<{ n: number }>(`select count(*)::int as n from operator_audit where payment_id = ?`, [id]))[0].n,
  };
}

async function refusedReversal(command: 'charges' | 'payouts', id: string): Promise<string> {
  const result = await runCli(h.taskQueue, command, 'reverse', id, '--reason', 'the partner says it returned the money: ticket 88231', '--operator', 'ops:ama');
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
  return result.stderr;
}

test('a paid live payout is not reversed (the recipient keeps the money): refused, nothing changed', async () => {
  const created = await h.request('live', 'POST', '/v1/payouts', {
    key: m.liveKey,
    body: { amount: 20_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233240004567', name: 'Kofi Boateng' }, reference: `rev-po-${idempotencyKey()}`, metadata: {} },
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(created.status).toBe(200);
  const id: string = created.json.id;
  expect(await h.temporal.client.workflow.getHandle(id).result()).toMatchObject({ status: 'succeeded' });
  const [{ reference_id: ref }] = await sql<{ reference_id: string }>(`select reference_id::text from rail_references where payment_id = ?`, [id]);
  expect(fake.transaction('disbursement', ref)?.state.status).toBe('SUCCESSFUL');
  const before = await footprint('payouts', id);
  expect(before.payment).toBe('succeeded');

  const stderr = await refusedReversal('payouts', id);
  expect(stderr).toContain(`live payout ${id} cannot be reversed`);
  expect(stderr).toContain('the recipient keeps the money');
  expect(await footprint('payouts', id)).toEqual(before);
});
