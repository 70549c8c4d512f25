import { DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS } from '../../src/config';
import { disputeJson } from '../../src/domain/dispute';
import { MAX_EVIDENCE_LENGTH } from '../../src/domain/dispute-evidence';
import { applyChargeTransition } from '../../src/persistence/charges/charge-store';
import { writeDisputeOnce } from '../../src/persistence/disputes/dispute-create-store';
import { findDispute } from '../../src/persistence/disputes/dispute-store';
import { issueKey } from '../../src/persistence/merchants/merchant-store';
import { startUnstartedDisputes } from '../../src/runtime/dispute-start-relay';
import { newId } from '../../src/support/new-id';
import { completeNow } from '../support/advance';
import { expectError } from '../support/api-errors';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { idempotencyKey, startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { expectBalancesMatchPostings, ledgerRows } from '../support/ledger-rows';
import { accept, draftCharge } from '../support/stored-charges';
import { succeededCharge } from '../support/succeeded-charge';
import { waitFor } from '../workflows/support/wait-for';

/**
 * Disputes end to end through the HTTP API, against the suite's PostgreSQL and Temporal dev server
 * with the payments worker: POST /v1/sandbox/charges/{id}/disputes (one transaction: claim, charge
 * lock, disputable checks, row, hold, `dispute.opened`), the dispute workflow (evidence_due_by and
 * `dispute.evidence_required`, the deadline timer raced by evidence, the sandbox decision, release or
 * debit, `dispute.won|lost`), POST /v1/disputes/{id}/evidence, GET one and the list, the sandbox
 * advance. Charges are written through the charge store (no charge workflow).
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
});
afterAll(() => closeWithLedgerCheck(h));

const DEADLINE = 'evidence deadline: no evidence by evidence_due_by, then lost';
const DECISION = 'sandbox review decision: the evidence is judged';

function open(merchant: TestMerchant, chargeId: string, body: Record<string, unknown> = {}, key: string | null = idempotencyKey(), env: 'sandbox' | 'live' = 'sandbox') {
  return h.request(env, 'POST', `/v1/sandbox/charges/${chargeId}/disputes`, {
    key: env === 'sandbox' ? merchant.testKey : merchant.liveKey,
    body,
    headers: key ? { 'idempotency-key': key } : {},
  });
}

const evidence = (merchant: TestMerchant, id: string, body: unknown) => h.request('sandbox', 'POST', `/v1/disputes/${id}/evidence`, { key: merchant.testKey, body });
const advance = (merchant: TestMerchant, id: string) => h.request('sandbox', 'POST', `/v1/sandbox/advance/${id}`, { key: merchant.testKey });
const getDispute = async (merchant: TestMerchant, id: string) => (await h.request('sandbox', 'GET', `/v1/disputes/${id}`, { key: merchant.testKey })).json;
const settled = (disputeId: string) => h.temporal.client.workflow.getHandle(disputeId).result() as Promise<{ status: string }>;

/** Waits until the dispute's workflow set its evidence deadline and waits on it (the evidence window is open). */
async function evidenceRequired(merchant: TestMerchant, id: string): Promise<Record<string, unknown>> {
  await waitFor(async () => (await h.temporal.client.workflow.getHandle(id).query<{ summary: string } | null>('nextTimer').catch(() => null))?.summary === DEADLINE);
  return getDispute(merchant, id);
}

async function count(table: 'disputes' | 'events' | 'ledger_entries', merchantId: string): Promise<number> {
  const rows = await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*)::text as n from ${table} where merchant_id = ?`, [merchantId]);
  return Number(rows[0].n);
}

async function eventsOf(merchant: TestMerchant, resourceId: string): Promise<{ type: string; transaction_id?: string; data: Record<string, unknown> }[]> {
  const all = (await h.request('sandbox', 'GET', '/v1/events?after_sequence=0&limit=100', { key: merchant.testKey })).json.data as {
    type: string;
    resource_id: string;
    transaction_id?: string;
    data: Record<string, unknown>;
  }[];
  return all.filter((e) => e.resource_id === resourceId);
}

/** The dispute's transfers in the ledger: { transfer kind: { account: amount } }. */
async function disputeTransfers(merchant: TestMerchant, id: string): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const r of (await ledgerRows(h, merchant.id)).filter((row) => row.resource_id === id)) {
    expect(r.n).toBe('1');
    (out[r.kind] ??= {})[r.account] = Number(r.amount);
  }
  return out;
}

describe('a dispute from opening to its end', () => {
  test('won: opened with the amount held in reserved (available may go below zero), evidence, under_review, won about 3 s later: the hold is released', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant);
    const available = charge.merchantAmount;
    expect(available).toBeLessThan(15_000); // fees were kept: the disputed 15 000 is more than the charge left in available

    const res = await open(merchant, charge.id, { reason: 'product_not_received' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^dp_[0-9A-Za-z]{24}$/),
      object: 'dispute',
      status: 'needs_response',
      amount: 15_000,
      currency: 'GHS',
      charge: charge.id,
      reason: 'product_not_received',
      evidence_due_by: null,
      evidence: null,
      livemode: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      metadata: {},
    });
    const id = res.json.id as string;
    // The hold: available - 15 000 (below zero here: a chargeback is not optional), reserved + 15 000.
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: available - 15_000, merchant_reserved: 15_000 });
    const balance = (await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey })).json;
    expect(balance).toMatchObject({ available: [{ currency: 'GHS', amount: available - 15_000 }], reserved: [{ currency: 'GHS', amount: 15_000 }] });

    const required = await evidenceRequired(merchant, id);
    expect(Date.parse(required.evidence_due_by as string)).toBe(Date.parse(res.json.created_at) + DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS);
    expect(required).toMatchObject({ status: 'needs_response', evidence: null });

    const submitted = await evidence(merchant, id, { text: 'Courier receipt signed by the cardholder.\nTracking: GH123.' });
    expect(submitted.status).toBe(200);
    expect(submitted.json).toMatchObject({
      id,
      status: 'under_review',
      evidence_due_by: required.evidence_due_by,
      evidence: { text: 'Courier receipt signed by the cardholder.\nTracking: GH123.', submitted_at: expect.any(String) },
    });
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: available - 15_000, merchant_reserved: 15_000 });

    expect(await settled(id)).toMatchObject({ status: 'won' });
    const fetched = await h.request('sandbox', 'GET', `/v1/disputes/${id}`, { key: merchant.testKey });
    expect(fetched.json).toMatchObject({ status: 'won', evidence: submitted.json.evidence });
    expect(fetched.text).toBe(disputeJson((await findDispute(h.orm, { merchantId: merchant.id, environment: 'sandbox' }, id))!));
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: available, merchant_reserved: 0 });

    const events = await eventsOf(merchant, id);
    expect(events.map((e) => e.type)).toEqual(['dispute.opened', 'dispute.evidence_required', 'dispute.won']);
    expect(events.every((e) => e.transaction_id === charge.id)).toBe(true);
    expect(events[0].data).toEqual(res.json);
    expect(events[1].data).toMatchObject({ status: 'needs_response', evidence_due_by: required.evidence_due_by });
    expect(events[2].data).toEqual(fetched.json);
    expect(await disputeTransfers(merchant, id)).toEqual({
      dispute_hold: { merchant_available: -15_000, merchant_reserved: 15_000 },
      dispute_release: { merchant_reserved: -15_000, merchant_available: 15_000 },
    });
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });

  test('lost (evidence containing losing_evidence; advance fires the decision): the hold is debited to dispute_clearing', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 20_000);
    const available = charge.merchantAmount + 20_000;
    const res = await open(merchant, charge.id, { amount: 6_000 });
    expect(res.json).toMatchObject({ amount: 6_000, reason: 'general' });
    const id = res.json.id as string;
    await evidenceRequired(merchant, id);
    expect((await evidence(merchant, id, { text: 'here is our losing_evidence' })).json.status).toBe('under_review');
    await waitFor(async () => (await h.temporal.client.workflow.getHandle(id).query<{ summary: string } | null>('nextTimer'))?.summary === DECISION);
    const advanced = await advance(merchant, id);
    expect(advanced.status).toBe(200);
    expect(advanced.json).toEqual({ id, fired: DECISION, status: 'lost' });
    expect(await settled(id)).toMatchObject({ status: 'lost' });
    const rows = await balanceRows(h, merchant.id);
    expect(rows).toMatchObject({ merchant_available: available - 6_000, merchant_reserved: 0, dispute_clearing: 6_000 });
    expect((await eventsOf(merchant, id)).map((e) => e.type)).toEqual(['dispute.opened', 'dispute.evidence_required', 'dispute.lost']);
    expect(await disputeTransfers(merchant, id)).toEqual({
      dispute_hold: { merchant_available: -6_000, merchant_reserved: 6_000 },
      dispute_debit: { merchant_reserved: -6_000, dispute_clearing: 6_000 },
    });
    // Evidence on a resolved dispute, and a second advance, are refused.
    expectError(await evidence(merchant, id, { text: 'more' }), 409, 'evidence_not_accepted');
    expectError(await advance(merchant, id), 409, 'nothing_to_advance', 'id');
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });

  test('lost by the deadline (advance fires it): the hold is debited; evidence after it is refused with a clear error', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 20_000);
    const available = charge.merchantAmount + 20_000;
    const id = (await open(merchant, charge.id, { reason: 'fraudulent' })).json.id as string;
    await evidenceRequired(merchant, id);
    const advanced = await advance(merchant, id);
    expect(advanced.json).toEqual({ id, fired: DEADLINE, status: 'lost' });
    expect(await settled(id)).toMatchObject({ status: 'lost' });
    expect(await getDispute(merchant, id)).toMatchObject({ status: 'lost', evidence: null, reason: 'fraudulent' });
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: available - 15_000, merchant_reserved: 0, dispute_clearing: 15_000 });
    const late = await evidence(merchant, id, { text: 'late receipt' });
    expectError(late, 409, 'evidence_not_accepted');
    expect(late.json.error.message).toMatch(/already resolved \(lost\): evidence is no longer accepted/);
    expect((await eventsOf(merchant, id)).map((e) => e.type)).toEqual(['dispute.opened', 'dispute.evidence_required', 'dispute.lost']);
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });

  test('evidence a second time is refused (409 evidence_not_accepted); the first decides', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 20_000);
    const id = (await open(merchant, charge.id)).json.id as string;
    await evidenceRequired(merchant, id);
    expect((await evidence(merchant, id, { text: 'first' })).status).toBe(200);
    const again = await evidence(merchant, id, { text: 'losing_evidence' });
    expectError(again, 409, 'evidence_not_accepted');
    expect(again.json.error.message).toMatch(/already submitted .*evidence is accepted once/);
    expect((await advance(merchant, id)).json).toMatchObject({ fired: DECISION, status: 'won' });
    expect((await getDispute(merchant, id)).evidence.text).toBe('first');
  });
});

describe('errors: a clear error and nothing written', () => {
  test('charge_not_disputable for a pending, failed or reversed charge', async () => {
    const merchant = await h.merchant();
    await fundMerchant(h, merchant.id, 100_000);
    const pending = await accept(h.orm, draftCharge(merchant.id, 15_000));
    const failed = await accept(h.orm, draftCharge(merchant.id, 15_000));
    await applyChargeTransition(h.orm, { chargeId: failed.id, to: 'failed', failureClass: 'declined', at: new Date().toISOString() });
    const reversed = await succeededCharge(h, merchant);
    await applyChargeTransition(h.orm, { chargeId: reversed.id, to: 'reversed', failureClass: null, at: new Date().toISOString() });
    const events = await count('events', merchant.id);
    for (const charge of [pending, failed, reversed]) expectError(await open(merchant, charge.id), 422, 'charge_not_disputable', 'id');
    expect(await count('disputes', merchant.id)).toBe(0);
    expect(await count('events', merchant.id)).toBe(events);
  });

  test('a charge with an open or lost dispute cannot be reversed (the cardholder would be paid twice); a won one can', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 20_000);
    const id = (await open(merchant, charge.id)).json.id as string;
    await evidenceRequired(merchant, id);
    const reverse = () => applyChargeTransition(h.orm, { chargeId: charge.id, to: 'reversed', failureClass: null, at: new Date().toISOString() });
    const before = { events: await count('events', merchant.id), ledger: await count('ledger_entries', merchant.id) };
    await expect(reverse()).rejects.toMatchObject({ name: 'TransitionRefusedError', message: expect.stringContaining('a dispute that is open') });
    expect({ events: await count('events', merchant.id), ledger: await count('ledger_entries', merchant.id) }).toEqual(before);
    expect((await evidence(merchant, id, { text: 'losing_evidence' })).status).toBe(200);
    expect((await advance(merchant, id)).json).toMatchObject({ fired: DECISION, status: 'lost' });
    await expect(reverse()).rejects.toMatchObject({ name: 'TransitionRefusedError', message: expect.stringContaining('lost (charged back)') });

    const wonCharge = await succeededCharge(h, merchant, 15_000, 20_000);
    const won = (await open(merchant, wonCharge.id)).json.id as string;
    await evidenceRequired(merchant, won);
    expect((await evidence(merchant, won, { text: 'receipt' })).status).toBe(200);
    expect((await advance(merchant, won)).json).toMatchObject({ fired: DECISION, status: 'won' });
    await expect(applyChargeTransition(h.orm, { chargeId: wonCharge.id, to: 'reversed', failureClass: null, at: new Date().toISOString() })).resolves.toMatchObject({
      status: 'reversed',
    });
  });

  test('dispute_already_open: at most one open dispute per charge; after it is resolved another may be opened', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 20_000);
    const first = await open(merchant, charge.id, { amount: 5_000 });
    expect(first.status).toBe(200);
    const before = await balanceRows(h, merchant.id);
    const second = await open(merchant, charge.id, { amount: 1_000 });
    expectError(second, 409, 'dispute_already_open', 'id');
    expect(second.json.error.message).toContain(first.json.id);
    expect(await balanceRows(h, merchant.id)).toEqual(before);
    await evidenceRequired(merchant, first.json.id);
    await evidence(merchant, first.json.id, { text: 'proof' });
    await advance(merchant, first.json.id);
    expect(await settled(first.json.id)).toMatchObject({ status: 'won' });
    // Won: its amount counts for nothing any more; the whole charge is disputable again.
    const third = await open(merchant, charge.id);
    expect(third.json).toMatchObject({ status: 'needs_response', amount: 15_000 });
    await evidenceRequired(merchant, third.json.id);
    await advance(merchant, third.json.id);
    expect(await settled(third.json.id)).toMatchObject({ status: 'lost' });
    // Lost: charged back; nothing is left to dispute.
    expectError(await open(merchant, charge.id), 422, 'amount_exceeds_disputable', 'amount');
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });

  test('amount_exceeds_disputable: over the charge amount minus pending and succeeded refunds; the default is what is left', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 30_000);
    expectError(await open(merchant, charge.id, { amount: 15_001 }), 422, 'amount_exceeds_disputable', 'amount');
    const refund = await h.request('sandbox', 'POST', '/v1/refunds', { key: merchant.testKey, body: { charge: charge.id, amount: 4_000 }, headers: { 'idempotency-key': idempotencyKey() } });
    expect(refund.status).toBe(200);
    expectError(await open(merchant, charge.id, { amount: 11_001 }), 422, 'amount_exceeds_disputable', 'amount');
    expect(await count('disputes', merchant.id)).toBe(0);
    const res = await open(merchant, charge.id);
    expect(res.json).toMatchObject({ amount: 11_000 });
    await completeNow(h, merchant.testKey, refund.json.id);
    await evidenceRequired(merchant, res.json.id);
    await advance(merchant, res.json.id);
    await settled(res.json.id);
  });

  test('not_found for another merchant\'s or an unknown charge; 400 for a bad body; Idempotency-Key required; scope; 404 on live', async () => {
    const merchant = await h.merchant({ verified: true });
    const other = await h.merchant();
    const theirs = await succeededCharge(h, other);
    const mine = await succeededCharge(h, merchant);
    expectError(await open(merchant, theirs.id), 404, 'not_found', 'id');
    expectError(await open(merchant, newId('charge')), 404, 'not_found', 'id');
    expectError(await open(merchant, 'txn_bad'), 404, 'not_found', 'id');
    expectError(await open(merchant, mine.id, { reason: 'because' }), 400, 'invalid_request', 'reason');
    expectError(await open(merchant, mine.id, { amount: 0 }), 400, 'invalid_request', 'amount');
    expectError(await open(merchant, mine.id, { amount: 1.5 }), 400, 'invalid_request', 'amount');
    expectError(await open(merchant, mine.id, { currency: 'GHS' }), 400, 'invalid_request', 'currency');
    expectError(await open(merchant, mine.id, {}, null), 400, 'idempotency_key_required');
    const readOnly = await issueKey(h.orm, merchant.id, 'sandbox', ['disputes:read']);
    const denied = await h.request('sandbox', 'POST', `/v1/sandbox/charges/${mine.id}/disputes`, { key: readOnly.secret, body: {}, headers: { 'idempotency-key': idempotencyKey() } });
    expectError(denied, 403, 'insufficient_scope');
    const writeOnly = await issueKey(h.orm, merchant.id, 'sandbox', ['disputes:write']);
    expectError(await h.request('sandbox', 'GET', '/v1/disputes', { key: writeOnly.secret }), 403, 'insufficient_scope');
    // Sandbox controls are not on the live listener.
    expectError(await open(merchant, newId('charge'), {}, idempotencyKey(), 'live'), 404, 'not_found');
    expect(await count('disputes', merchant.id)).toBe(0);
    expect(await count('disputes', other.id)).toBe(0);
    expectError(await h.request('sandbox', 'GET', `/v1/disputes/${newId('dispute')}`, { key: merchant.testKey }), 404, 'not_found', 'id');
    expectError(await h.request('sandbox', 'GET', '/v1/disputes/dp_nope', { key: merchant.testKey }), 404, 'not_found', 'id');
  });

  test('evidence: 400 for a bad body, 404 for an unknown or another merchant\'s dispute, scope', async () => {
    const merchant = await h.merchant();
    const other = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 20_000);
    const id = (await open(merchant, charge.id)).json.id as string;
    await evidenceRequired(merchant, id);
    expectError(await evidence(merchant, id, {}), 400, 'invalid_request', 'text');
    expectError(await evidence(merchant, id, { text: '' }), 400, 'invalid_request', 'text');
    expectError(await evidence(merchant, id, { text: ' \n\t ' }), 400, 'invalid_request', 'text');
    expectError(await evidence(merchant, id, { text: 'x'.repeat(MAX_EVIDENCE_LENGTH + 1) }), 400, 'invalid_request', 'text');
    expectError(await evidence(merchant, id, { text: 'ok', files: [] }), 400, 'invalid_request', 'files');
    expectError(await evidence(merchant, id, { text: 'a\u0000b' }), 400, 'invalid_request', 'text');
    expectError(await evidence(other, id, { text: 'ok' }), 404, 'not_found', 'id');
    expectError(await evidence(merchant, newId('dispute'), { text: 'ok' }), 404, 'not_found', 'id');
    expectError(await evidence(merchant, 'dp_bad', { text: 'ok' }), 404, 'not_found', 'id');
    const readOnly = await issueKey(h.orm, merchant.id, 'sandbox', ['disputes:read']);
    expectError(await h.request('sandbox', 'POST', `/v1/disputes/${id}/evidence`, { key: readOnly.secret, body: { text: 'ok' } }), 403, 'insufficient_scope');
    expect(await getDispute(merchant, id)).toMatchObject({ status: 'needs_response', evidence: null });
    // The longest text accepted is accepted.
    expect((await evidence(merchant, id, { text: 'y'.repeat(MAX_EVIDENCE_LENGTH) })).json.status).toBe('under_review');
    await advance(merchant, id);
    expect(await settled(id)).toMatchObject({ status: 'won' });
  });
});

describe('idempotency and concurrency', () => {
  test('the same key and body answers the first dispute byte for byte; another body is idempotency_key_reused; one dispute', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 20_000);
    const key = idempotencyKey();
    const first = await open(merchant, charge.id, { amount: 1_000 }, key);
    const again = await open(merchant, charge.id, { amount: 1_000 }, key);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expectError(await open(merchant, charge.id, { amount: 2_000 }, key), 422, 'idempotency_key_reused');
    expect(await count('disputes', merchant.id)).toBe(1);
    await evidenceRequired(merchant, first.json.id);
    await advance(merchant, first.json.id);
    await settled(first.json.id);
  });

  test('twenty concurrent opens of one charge: one dispute, nineteen dispute_already_open; one hold', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 20_000);
    const available = charge.merchantAmount + 20_000;
    const answers = await Promise.all(Array.from({ length: 20 }, () => open(merchant, charge.id, { amount: 3_000 })));
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 200)) expectError(r, 409, 'dispute_already_open', 'id');
    expect(await count('disputes', merchant.id)).toBe(1);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: available - 3_000, merchant_reserved: 3_000 });
    const id = accepted[0].json.id as string;
    await evidenceRequired(merchant, id);
    await advance(merchant, id);
    expect(await settled(id)).toMatchObject({ status: 'lost' });
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: available - 3_000, merchant_reserved: 0, dispute_clearing: 3_000 });
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });
});

describe('refunds and disputes together never pay back more than the charge', () => {
  test('an open dispute takes its amount out of what is refundable; won gives it back; lost keeps it out', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 50_000);
    const refund = (body: Record<string, unknown>) => h.request('sandbox', 'POST', '/v1/refunds', { key: merchant.testKey, body: { charge: charge.id, ...body }, headers: { 'idempotency-key': idempotencyKey() } });
    const refundSettled = (id: string) => completeNow(h, merchant.testKey, id);

    const dispute = (await open(merchant, charge.id, { amount: 10_000 })).json.id as string;
    expectError(await refund({ amount: 5_001 }), 422, 'amount_exceeds_refundable', 'amount');
    const partial = await refund({});
    expect(partial.json).toMatchObject({ status: 'pending', amount: 5_000 });
    await refundSettled(partial.json.id);
    expectError(await refund({ amount: 1 }), 422, 'amount_exceeds_refundable', 'amount');

    // Won: the disputed 10 000 is refundable again.
    await evidenceRequired(merchant, dispute);
    await evidence(merchant, dispute, { text: 'proof of delivery' });
    await advance(merchant, dispute);
    expect(await settled(dispute)).toMatchObject({ status: 'won' });
    const second = await open(merchant, charge.id, { amount: 4_000 });
    const rest = await refund({});
    expect(rest.json).toMatchObject({ amount: 6_000 });
    await refundSettled(rest.json.id);

    // Lost: charged back, so never refundable; refunds (11 000) plus the lost dispute (4 000) are the charge.
    await evidenceRequired(merchant, second.json.id);
    await advance(merchant, second.json.id);
    expect(await settled(second.json.id)).toMatchObject({ status: 'lost' });
    expectError(await refund({ amount: 1 }), 422, 'amount_exceeds_refundable', 'amount');
    expectError(await open(merchant, charge.id), 422, 'amount_exceeds_disputable', 'amount');
    const rows = await balanceRows(h, merchant.id);
    expect(rows).toMatchObject({ merchant_available: charge.merchantAmount + 50_000 - 11_000 - 4_000, merchant_reserved: 0, refund_clearing: 11_000, dispute_clearing: 4_000 });
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });
});

describe('GET /v1/disputes', () => {
  test('newest first, cursor and limit, filters status, charge, created_after, created_before; strict; isolated', async () => {
    const merchant = await h.merchant();
    const a = await succeededCharge(h, merchant, 15_000, 30_000);
    const b = await succeededCharge(h, merchant, 15_000);
    const c = await succeededCharge(h, merchant, 15_000);
    const ids: string[] = [];
    for (const charge of [a, b, c]) {
      const id = (await open(merchant, charge.id, { amount: 1_000 })).json.id as string;
      ids.push(id);
      await evidenceRequired(merchant, id);
    }
    await advance(merchant, ids[1]); // lost by the deadline
    await settled(ids[1]);
    const list = (query: string) => h.request('sandbox', 'GET', `/v1/disputes${query}`, { key: merchant.testKey });
    const all = await list('');
    expect(all.json).toMatchObject({ object: 'list', has_more: false });
    expect(all.json.data.map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
    expect(all.json.data[0]).toMatchObject({ object: 'dispute', charge: c.id, evidence_due_by: expect.any(String) });
    const page1 = await list('?limit=2');
    expect(page1.json.has_more).toBe(true);
    const page2 = await list(`?limit=2&cursor=${page1.json.next_cursor}`);
    expect([...page1.json.data, ...page2.json.data].map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
    expect(page2.json).not.toHaveProperty('next_cursor');
    expect((await list('?status=lost')).json.data.map((d: { id: string }) => d.id)).toEqual([ids[1]]);
    expect((await list('?status=needs_response')).json.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[0]]);
    expect((await list(`?charge=${b.id}`)).json.data.map((d: { id: string }) => d.id)).toEqual([ids[1]]);
    const firstAt = all.json.data[2].created_at;
    expect((await list(`?created_after=${firstAt}`)).json.data).toHaveLength(2);
    expect((await list(`?created_before=${firstAt}`)).json.data).toHaveLength(0);
    expect((await list('?created_after=2000-01-01')).json.data).toHaveLength(3);
    expectError(await list('?status=pending'), 400, 'invalid_request', 'status');
    expectError(await list('?charge=dp_x'), 400, 'invalid_request', 'charge');
    expectError(await list('?cursor=bogus'), 400, 'invalid_request', 'cursor');
    expectError(await list('?channel=bank'), 400, 'invalid_request', 'channel');
    const other = await h.merchant();
    expect((await h.request('sandbox', 'GET', '/v1/disputes', { key: other.testKey })).json.data).toEqual([]);
    expect((await h.request('live', 'GET', '/v1/disputes', { key: merchant.liveKey })).json.data).toEqual([]);
    for (const id of [ids[0], ids[2]]) {
      await advance(merchant, id);
      await settled(id);
    }
  });
});

describe('dispute-start relay', () => {
  test('starts the workflow of a dispute the API wrote but never started', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 5_000);
    const scope = { merchantId: merchant.id, environment: 'sandbox' as const, key: idempotencyKey() };
    const now = new Date().toISOString();
    const write = await writeDisputeOnce(
      h.orm,
      scope,
      'hash',
      newId('dispute'),
      { chargeId: charge.id, amount: 2_500 },
      (id, c, amount) => ({
        id,
        merchantId: merchant.id,
        environment: 'sandbox',
        chargeId: c.id,
        status: 'needs_response',
        amount,
        currency: c.currency,
        reason: 'duplicate',
        evidenceText: null,
        evidenceSubmittedAt: null,
        evidenceDueBy: null,
        createdAt: now,
        updatedAt: now,
      }),
      (d) => ({ status: 200, body: disputeJson(d) }),
    );
    if (write.kind !== 'written') throw new Error(write.kind);
    const started = await startUnstartedDisputes({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue, log: h.deps.log, unstartedAfterSeconds: 0 });
    expect(started).toBeGreaterThanOrEqual(1);
    await evidenceRequired(merchant, write.dispute.id);
    await advance(merchant, write.dispute.id);
    expect(await settled(write.dispute.id)).toMatchObject({ status: 'lost' });
    const rows = await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*)::text as n from disputes where id = ? and workflow_started_at is not null`, [write.dispute.id]);
    expect(rows[0].n).toBe('1');
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });
});
