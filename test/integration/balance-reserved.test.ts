/**
 * GET /v1/balances shows `reserved` (INTERFACE "Money movement"): the merchant_reserved account's
 * balance row, beside available and pending, per currency and environment. The transfers are posted
 * the way every state change posts them (entries, then balance rows, in one transaction).
 */
import { ACCOUNTS, type Transfer } from '../../src/domain/ledger';
import type { Environment } from '../../src/domain/environment';
import { addToBalances } from '../../src/persistence/ledger/account-balances';
import { postTransfer } from '../../src/persistence/ledger/ledger';
import { startHarness, type Harness } from '../support/harness';
import { expectBalancesMatchPostings } from '../support/ledger-rows';
import { accept, draftCharge, succeed } from '../support/stored-charges';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(() => h?.close());

async function post(merchantId: string, environment: Environment, currency: string, transfer: Transfer): Promise<void> {
  const scope = { merchantId, environment, currency };
  await h.orm.em.fork().transactional(async (em) => {
    postTransfer(em, { ...scope, resourceId: 'po_test' }, transfer, new Date());
    await em.flush();
    await addToBalances(em, scope, [transfer]);
  });
}

const reserve = (id: string, amount: number): Transfer => ({
  id,
  kind: 'payout_reserve',
  postings: [
    { account: ACCOUNTS.merchantAvailable, amount: -amount },
    { account: ACCOUNTS.merchantReserved, amount },
  ],
});

const release = (id: string, amount: number): Transfer => ({
  id,
  kind: 'payout_release',
  postings: [
    { account: ACCOUNTS.merchantReserved, amount: -amount },
    { account: ACCOUNTS.merchantAvailable, amount },
  ],
});

test('reserved holds what moved from available into merchant_reserved, per currency, in its own environment', async () => {
  const merchant = await h.merchant();
  const charge = await accept(h.orm, draftCharge(merchant.id, 20_000));
  await succeed(h.orm, charge.id);
  await accept(h.orm, draftCharge(merchant.id, 3_000, { currency: 'USD' }));
  await post(merchant.id, 'sandbox', 'GHS', reserve('po_a:payout_reserve', 5_000));
  await post(merchant.id, 'sandbox', 'GHS', reserve('po_b:payout_reserve', 1_000));

  const res = await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({
    object: 'balance',
    livemode: false,
    available: [
      { currency: 'GHS', amount: charge.merchantAmount - 6_000 },
      { currency: 'USD', amount: 0 },
    ],
    pending: [
      { currency: 'GHS', amount: 0 },
      { currency: 'USD', amount: expect.any(Number) },
    ],
    reserved: [
      { currency: 'GHS', amount: 6_000 },
      { currency: 'USD', amount: 0 },
    ],
  });
  expect(Object.keys(res.json)).toEqual(['object', 'livemode', 'available', 'pending', 'reserved']);
  // The live balance is untouched by sandbox reservations.
  expect((await h.request('live', 'GET', '/v1/balances', { key: merchant.liveKey })).json).toEqual({ object: 'balance', livemode: true, available: [], pending: [], reserved: [] });
  await expectBalancesMatchPostings(h.orm, merchant.id);
  // No payout stands behind these reservations: release them, or the suite's ledger check (which
  // compares reserved with what is open against it) would rightly report them.
  await post(merchant.id, 'sandbox', 'GHS', release('po_a:payout_release', 5_000));
  await post(merchant.id, 'sandbox', 'GHS', release('po_b:payout_release', 1_000));
});
