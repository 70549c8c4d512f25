import { DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS, disputeEvidenceWindowMs } from '../../src/config';
import { disputeJson, type DisputeRecord } from '../../src/domain/dispute';
import { evidenceRefusal, evidenceRequestRefusal, MAX_EVIDENCE_LENGTH, sandboxDisputeDecision } from '../../src/domain/dispute-evidence';
import { disputeTransfersFor } from '../../src/domain/dispute-ledger';
import { isBalanced } from '../../src/domain/ledger';

// The pure rules of disputes: the ledger transfers of each status, who may send evidence when, the
// sandbox decision, the object's shape and DISPUTE_EVIDENCE_WINDOW.

const DUE = '2026-12-01T00:00:00.000Z';
const base: DisputeRecord = {
  id: 'dp_AAAAAAAAAAAAAAAAAAAAAAAA',
  merchantId: 'mer_test',
  environment: 'sandbox',
  chargeId: 'txn_AAAAAAAAAAAAAAAAAAAAAAAA',
  status: 'needs_response',
  amount: 7_000,
  currency: 'GHS',
  reason: 'general',
  evidenceText: null,
  evidenceSubmittedAt: null,
  evidenceDueBy: DUE,
  createdAt: '2026-11-24T00:00:00.000Z',
  updatedAt: '2026-11-24T00:00:00.000Z',
};

test('hold on opening, nothing for evidence, release when won, debit when lost: balanced, deterministic ids', () => {
  const all = (['needs_response', 'under_review', 'won', 'lost'] as const).map((s) => disputeTransfersFor(base, s));
  expect(all.map((ts) => ts.map((t) => [t.id, t.kind]))).toEqual([
    [[`${base.id}:hold`, 'dispute_hold']],
    [],
    [[`${base.id}:release`, 'dispute_release']],
    [[`${base.id}:debit`, 'dispute_debit']],
  ]);
  for (const t of all.flat()) expect(isBalanced(t)).toBe(true);
  expect(all[0][0].postings).toEqual([
    { account: 'merchant_available', amount: -7_000 },
    { account: 'merchant_reserved', amount: 7_000 },
  ]);
  expect(all[3][0].postings).toEqual([
    { account: 'merchant_reserved', amount: -7_000 },
    { account: 'dispute_clearing', amount: 7_000 },
  ]);
});

test('evidence is taken once, while the dispute needs a response, before evidence_due_by', () => {
  const before = Date.parse(DUE) - 1;
  expect(evidenceRefusal(base, before)).toBeNull();
  expect(evidenceRefusal({ ...base, evidenceDueBy: null }, before)).toBeNull();
  expect(evidenceRefusal(base, Date.parse(DUE))).toMatch(/deadline .* passed at 2026-12-01T00:00:00.000Z/);
  expect(evidenceRefusal({ ...base, status: 'under_review', evidenceSubmittedAt: '2026-11-25T00:00:00.000Z' }, before)).toMatch(/already submitted at 2026-11-25/);
  expect(evidenceRefusal({ ...base, status: 'won' }, before)).toMatch(/already resolved \(won\)/);
  expect(evidenceRefusal({ ...base, status: 'lost' }, before)).toMatch(/already resolved \(lost\)/);
});

test('the shape of a submitEvidence request; length in code points, as the API schema and PostgreSQL count', () => {
  expect(evidenceRequestRefusal({ text: 'ok' })).toBeNull();
  expect(evidenceRequestRefusal({ text: '😀'.repeat(MAX_EVIDENCE_LENGTH) })).toBeNull();
  expect(evidenceRequestRefusal({ text: 'x'.repeat(MAX_EVIDENCE_LENGTH + 1) })).toMatch(/longer than/);
  expect(evidenceRequestRefusal({ text: ' ' })).toMatch(/non-empty/);
  expect(evidenceRequestRefusal({ text: 'a\u0000b' })).toMatch(/control characters/);
  expect(evidenceRequestRefusal({ text: 'line 1\n\tline 2' })).toBeNull();
  expect(evidenceRequestRefusal(null)).toMatch(/submitEvidence takes/);
});

test('the sandbox decision: losing_evidence anywhere in the text loses, anything else wins', () => {
  expect(sandboxDisputeDecision('see attached losing_evidence.pdf')).toBe('lost');
  expect(sandboxDisputeDecision('receipt')).toBe('won');
  expect(sandboxDisputeDecision('LOSING_EVIDENCE')).toBe('won');
});

test('the dispute object: evidence null until submitted, metadata always {}', () => {
  expect(JSON.parse(disputeJson(base))).toEqual({
    id: base.id,
    object: 'dispute',
    status: 'needs_response',
    amount: 7_000,
    currency: 'GHS',
    charge: base.chargeId,
    reason: 'general',
    evidence_due_by: DUE,
    evidence: null,
    livemode: false,
    created_at: base.createdAt,
    updated_at: base.updatedAt,
    metadata: {},
  });
  const submitted = { ...base, status: 'under_review' as const, evidenceText: 'proof', evidenceSubmittedAt: '2026-11-25T00:00:00.000Z' };
  expect(JSON.parse(disputeJson(submitted)).evidence).toEqual({ text: 'proof', submitted_at: '2026-11-25T00:00:00.000Z' });
});

test('DISPUTE_EVIDENCE_WINDOW: default 7 days; a duration; anything else stops the worker', () => {
  expect(disputeEvidenceWindowMs({})).toBe(DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS);
  expect(DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS).toBe(7 * 86_400_000);
  expect(disputeEvidenceWindowMs({ DISPUTE_EVIDENCE_WINDOW: '48h' })).toBe(48 * 3_600_000);
  expect(() => disputeEvidenceWindowMs({ DISPUTE_EVIDENCE_WINDOW: 'soon' })).toThrow(/not a duration/);
  expect(() => disputeEvidenceWindowMs({ DISPUTE_EVIDENCE_WINDOW: '0d' })).toThrow(/positive duration/);
});
