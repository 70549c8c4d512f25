import { randomUUID } from 'node:crypto';
import { freePort } from '../../src/support/free-port';
import type { StatementLine } from '../../src/rail/momo-statement';
import { remoteFakePartner, type RemoteFakePartner } from '../support/fake-partner-remote';
import { chargeBody, idempotencyKey, MTN_GH } from '../support/harness';
import { cleanUp, ready, startMain, type StartedMain } from '../support/npm-start';
import { npmStartApi } from '../support/npm-start-api';
import { execCli } from '../support/run-cli';

/**
 * Issue 29, the proof on `npm start`'s own servers and production wiring (src/main.ts starts the
 * fake partner through src/runtime/live-partner.ts, and the worker process, workers/main.ts, gets
 * its PARTNER_* settings): a day of live charges, payouts and a settlement, with late and missing
 * answers injected through the fake partner's controls, then the day's statement reconciled. Every
 * break is found, and every one and every late answer is settled through the audited paths
 * (`reconcile resolve` with what was checked, `payments settle-late`), except what the engine cannot
 * verify: a credited charge the statement omits is refused by hand (issue 43) and closed when the
 * partner lists it and the partial day is fetched again; `ledger check` balances at the end.
 *
 * A charge's lifetime is 15 minutes, so the "approved after expires_at" case runs on the
 * time-skipping server (test/workflows/charge-live-rail.test.ts, payment-review.test.ts); here a
 * partner that changes its answer after we ended the payment plays the late answer.
 */

let s: StartedMain;
let fake: RemoteFakePartner;
let liveUrl: string;
let key: string;
let merchantId: string;

const { cli, api, until, statusOf, settled } = npmStartApi(() => ({ s, url: liveUrl, key }));

const phone = (suffix: string) => `23324000${suffix}`;
const today = () => new Date().toISOString().slice(0, 10);

async function charge(suffix: string): Promise<string> {
  const res = await api('POST', '/v1/charges', chargeBody({ customer: { identifier: phone(suffix), name: 'Ama Mensah' }, reference: `day-${suffix}-${idempotencyKey()}` }));
  expect(res.status).toBe(200);
  return res.json.id as string;
}

async function payout(suffix: string, amount = 2_000): Promise<string> {
  const res = await api('POST', '/v1/payouts', { amount, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: phone(suffix), name: 'Kofi' }, reference: `day-po-${suffix}-${idempotencyKey()}` });
  expect(res.status).toBe(200);
  return res.json.id as string;
}


/** Our payment's line in the partner's statement of today (its reference, for the controls). */
async function lineOf(product: 'collection' | 'disbursement', paymentId: string): Promise<StatementLine> {
  return until(`statement line of ${paymentId}`, async () => (await fake.statement(product, today())).lines.find((l) => l.externalId === paymentId), (l) => l !== undefined).then((l) => l!);
}

beforeAll(async () => {
  fake = remoteFakePartner(await freePort());
  s = await startMain({ env: { ...fake.env, FAKE_PARTNER_APPROVE_AFTER_MS: '300', FAKE_PARTNER_LATE_PAYOUT_SUCCESS_MS: '12000' } });
  await ready(s);
  liveUrl = `http://127.0.0.1:${s.env.LIVE_PORT}`;
  const merchant = await cli('merchants', 'create', '--name', 'Live Day Shop');
  merchantId = merchant.id as string;
  key = merchant.live_key as string;
  await cli('merchants', 'verify', merchantId, '--reason', 'KYC checked', '--operator', 'ama@ops');
  await cli('merchants', 'set', merchantId, '--settlement-bank', 'GCB', '--settlement-account', '0012345678901', '--reason', 'merchant onboarding', '--operator', 'ama@ops');
}, 180_000);

afterAll(async () => {
  await fake?.close();
  if (s) await cleanUp(s);
});

test('a live day on npm start: late and missing answers, the statement reconciled, every break and late answer settled through the audited paths, the ledger balanced', async () => {
  // Charges: plain, listed twice (0010), one minor unit more on the statement (0011), refused by the
  // partner (0001), and one the partner never answers by itself (0004).
  const [ok, listedTwice, onePlus, missing, otherCurrency, refused, silent] = await Promise.all(['4567', '0010', '0011', '4568', '4569', '0001', '0004'].map(charge));
  for (const id of [ok, listedTwice, onePlus, missing, otherCurrency]) await settled('charges', id, 'succeeded');
  await settled('charges', refused, 'failed');
  expect(await statusOf('charges', silent)).toBe('awaiting_action');

  // The silent one: the partner approves it with no callback; found by the status polls.
  expect(await fake.control('collection', `settle/${(await lineOf('collection', silent)).referenceId}`, { status: 'SUCCESSFUL', callback: false })).toBe(204);
  await settled('charges', silent, 'succeeded');

  // A late answer: the partner says SUCCESSFUL for the charge it had refused (we ended it failed).
  // Its callback reaches a closed workflow: read, recorded as late money, NeedsAttention.
  expect(await fake.control('collection', `settle/${(await lineOf('collection', refused)).referenceId}`, { status: 'SUCCESSFUL' })).toBe(204);
  const late = await until('late answer of the refused charge', () => cli('payments', 'settle-late', refused, '--action', 'credit', '--reason', 'partner statement shows it paid', '--operator', 'e2e').catch((e: Error) => e), (r) => !(r instanceof Error));
  expect(late).toMatchObject({ status: 'succeeded' });
  expect(await statusOf('charges', refused)).toBe('succeeded');

  // Payouts: one plain, one the partner pays only after a wait (0012): pending meanwhile, never
  // failed; and one it refuses (0003), then pays after all: the money left, so the payout is
  // accepted as paid late through the audited path.
  const [paid, slow, refusedPayout] = await Promise.all([payout('4567'), payout('0012'), payout('0003')]);
  await settled('payouts', paid, 'succeeded');
  await settled('payouts', refusedPayout, 'failed');
  expect(await statusOf('payouts', slow)).toBe('pending');
  await settled('payouts', slow, 'succeeded');
  expect(await fake.control('disbursement', `settle/${(await lineOf('disbursement', refusedPayout)).referenceId}`, { status: 'SUCCESSFUL' })).toBe(204);
  await until('late answer of the refused payout', () => cli('payments', 'settle-late', refusedPayout, '--action', 'accept', '--reason', 'partner paid it after all', '--operator', 'e2e').catch((e: Error) => e), (r) => !(r instanceof Error));
  expect(await statusOf('payouts', refusedPayout)).toBe('succeeded');

  // The day's settlement through the rail's transfer.
  const run = await cli('settlements', 'run', '--merchant', merchantId, '--env', 'live', '--reason', 'end of the live day', '--operator', 'ama@ops');
  expect(JSON.stringify(run)).toContain('stl_');
  // It goes to the partner of the bank route (the aggregator, with npm start's default routes), and is
  // paid before the statements are read (a batch still pending there would be a passing difference).
  const batch = /stl_[A-Za-z0-9]+/.exec(JSON.stringify(run))![0];
  await until(`settlement ${batch}`, async () => (await api('GET', `/v1/settlements/${batch}`)).json.status as string, (v) => v === 'paid');
  expect((await api('GET', `/v1/settlements/${batch}`)).json).toMatchObject({ status: 'paid' });

  // The statement's breaks: a line of a reference we never sent, one of ours left out, another currency.
  expect(
    await fake.control('collection', 'statement/lines', {
      referenceId: randomUUID(),
      financialTransactionId: '99887766',
      externalId: 'txn_not_ours',
      amount: '12.00',
      currency: 'GHS',
      status: 'SUCCESSFUL',
      reason: null,
      party: '****9999',
      time: new Date().toISOString(),
      completedAt: new Date().toISOString(),
    }),
  ).toBe(204);
  const missingReference = (await lineOf('collection', missing)).referenceId;
  expect(await fake.control('collection', `statement/amend/${missingReference}`, { omit: true })).toBe(204);
  expect(await fake.control('collection', `statement/amend/${(await lineOf('collection', otherCurrency)).referenceId}`, { currency: 'NGN' })).toBe(204);

  // Today's statement so far: only with --partial (issue 43), which does not lock the day.
  const reconciled = await cli('reconcile', 'run', '--partial');
  expect(reconciled).toMatchObject({ date: today(), breaks: { duplicate: 1, amount_mismatch: 1, missing_here: 1, missing_there: 1, currency_mismatch: 1, pending_at_partner: 0 } });
  const again = await cli('reconcile', 'run', '--partial');
  expect(again.breaks).toEqual(reconciled.breaks);

  const open = (await cli('reconcile', 'breaks', '--status', 'open')).data!;
  expect(open.map((b) => b.kind).sort()).toEqual(['amount_mismatch', 'currency_mismatch', 'duplicate', 'missing_here', 'missing_there']);
  expect(open.find((b) => b.kind === 'missing_here')).toMatchObject({ payment_id: null });
  expect(open.find((b) => b.kind === 'amount_mismatch')).toMatchObject({ payment_id: onePlus });

  // A credited charge the statement omits is not closed by an operator's word (issue 43): nothing in
  // the partner's records supports it. Refused, nothing written.
  const omitted = open.find((b) => b.kind === 'missing_there')!;
  expect(omitted).toMatchObject({ payment_id: missing });
  const refusedResolve = await execCli(['reconcile', 'resolve', omitted.id as string, '--checked', 'called the partner', '--reason', 'checked with the partner', '--operator', 'e2e'], s.env, { process: true });
  expect(refusedResolve.code).toBe(1);
  expect(refusedResolve.stderr).toContain('cannot verify');
  // Without --checked, nothing is resolved either.
  expect((await execCli(['reconcile', 'resolve', omitted.id as string, '--reason', 'r', '--operator', 'e2e'], s.env, { process: true })).stderr).toContain('--checked is required');

  // The others are resolved by hand, each saying what was checked with the partner.
  const byHand = open.filter((b) => b.kind !== 'missing_there');
  for (const b of byHand) {
    const resolved = await cli('reconcile', 'resolve', b.id as string, '--checked', `partner ticket for ${b.reference as string}`, '--reason', `checked with the partner: ${b.kind}`, '--operator', 'e2e');
    expect(resolved).toMatchObject({ status: 'resolved', resolved_by: 'e2e', resolved_checked: `partner ticket for ${b.reference as string}` });
  }
  // The right path for the omitted charge: the partner lists it after all, and the day, fetched again, closes its break.
  expect(await fake.control('collection', `statement/amend/${missingReference}`, { omit: false })).toBe(204);
  expect(await cli('reconcile', 'run', '--partial')).toMatchObject({ breaks: { missing_there: 0 } });
  const closed = (await cli('reconcile', 'breaks', '--status', 'resolved', '--kind', 'missing_there')).data!.find((b) => b.id === omitted.id);
  expect(closed).toMatchObject({ status: 'resolved', resolved_by: 'reconciliation', resolved_checked: null });
  expect((await cli('reconcile', 'breaks', '--status', 'open')).data).toEqual([]);

  // Every settlement is audited: who, why, before and after.
  const audit = (await cli('audit', 'list', '--limit', '100')).data!;
  expect(audit.filter((a) => a.action === 'reconciliation_break.resolve')).toHaveLength(byHand.length);
  expect(audit.filter((a) => a.payment_id === refused).map((a) => a.operator)).toContain('e2e');

  const ledger = await cli('ledger', 'check');
  expect(ledger).toMatchObject({ ok: true });
}, 300_000);
