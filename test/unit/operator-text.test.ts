import { NO_ATTENTION, retryRefusal, type ChargeAttention } from '../../src/domain/charge-attention';
import { resolutionRequestRefusal } from '../../src/domain/charge-resolution';
import { operatorNameProblem, operatorRefusal, reasonProblem, RECONCILER_OPERATOR } from '../../src/domain/operator-action';
import { closeReviewRefusal, settleLateRefusal } from '../../src/domain/payment-review';
import { decisionRequestRefusal, reversalRequestRefusal } from '../../src/domain/payout-review';
import { retryRequestRefusal } from '../../src/domain/settlement-retry';
import { firstNonPlainCharacter } from '../../src/domain/plain-text';

// Issue 31, finding 5: an operator's name and reason are plain text on one line, refused at every
// validator before anything happens (the audit insert and a payout's review write would otherwise
// fail for good on NUL, and jsonb refuses a lone surrogate's escape).

const BAD: Array<[string, string]> = [
  ['NUL', 'a\u0000b'],
  ['U+0001', 'a\u0001b'],
  ['tab', 'a\tb'],
  ['newline', 'a\nb'],
  ['carriage return', 'a\rb'],
  ['DEL', 'a\u007Fb'],
  ['C1 (U+0085)', 'a\u0085b'],
  ['bidi override U+202E', 'a\u202Eb'],
  ['bidi isolate U+2066', 'a\u2066b'],
  ['zero-width space U+200B', 'a\u200Bb'],
  ['line separator U+2028', 'a\u2028b'],
  ['lone high surrogate', 'a\uD800b'],
  ['lone low surrogate', 'a\uDC00b'],
];

/** Every validator of an operator's fields, as each update takes them. */
const VALIDATORS: Array<[string, (operator: string, reason: string) => string | null]> = [
  ['operatorRefusal', (operator, reason) => operatorRefusal({ operator, reason })],
  ['decidePayout', (operator, reason) => decisionRequestRefusal({ decision: 'approve', operator, reason })],
  ['reversePayout', (operator, reason) => reversalRequestRefusal({ operator, reason })],
  ['retrySettlement', (operator, reason) => retryRequestRefusal({ operator, reason })],
  ['resolveCharge', (operator, reason) => resolutionRequestRefusal({ as: 'failed', operator, reason })],
  ['settleLateAnswer', (operator, reason) => settleLateRefusal({ action: 'accept', operator, reason })],
  ['closeReview', (operator, reason) => closeReviewRefusal({ operator, reason })],
  ['retryStep', (operator, reason) => retryRefusal('txn_x', { ...NO_ATTENTION, needsAttention: true, step: 'charge -> succeeded' }, { operator, reason })],
];

describe.each(VALIDATORS)('%s', (_, refusal) => {
  test.each(BAD)('refuses a reason with %s', (__, text) => {
    expect(refusal('ui:jane', text)).toMatch(/"reason" must be plain text on one line|must not contain control characters/);
  });
  test.each(BAD)('refuses an operator with %s', (__, text) => {
    expect(refusal(text, 'database restored')).toMatch(/"operator" must be plain text on one line|must not contain control characters/);
  });
  test('accepts a 500-character multibyte reason and a plain operator', () => {
    expect(refusal('Ama Mensah', 'é漢'.repeat(250))).toBeNull();
    expect(refusal('Ama Mensah', 'ok 👍 (emoji are plain text)')).toBeNull();
  });
  test('refuses a reason of 501 characters', () => {
    expect(refusal('ui:jane', 'é'.repeat(501))).toMatch(/longer than 500/);
  });
  test('refuses the engine\'s names as an operator', () => {
    for (const name of ['system', 'System', 'system:jane', 'SYSTEM:reconciler ']) expect(refusal(name, 'reconciler: overdue by 1 s')).toMatch(/engine|not an operator/);
  });
});

test('the refused character is named in the message', () => {
  expect(firstNonPlainCharacter('a\u0000')).toBe('U+0000');
  expect(firstNonPlainCharacter('x\u202E')).toBe('U+202E');
  expect(firstNonPlainCharacter('ok')).toBeNull();
  expect(reasonProblem('a\u0001b', '--reason')).toBe('--reason must be plain text on one line: it contains U+0001 (a control, format or line-separator character, or a broken surrogate)');
  expect(operatorNameProblem('cli:jane', '--operator')).toBeNull();
});

describe('retryStep: every retry names its operator; only the reconciler is automatic (finding 4)', () => {
  const waiting: ChargeAttention = { ...NO_ATTENTION, needsAttention: true, step: 'charge -> succeeded' };
  const refusal = (request: unknown, state = waiting) => retryRefusal('txn_x', state, request);

  test('"by": "reconciler" from the UI no longer skips the operator', () => {
    expect(refusal({ reason: 'x', by: 'reconciler' })).toMatch(/^an "operator" is required/);
    expect(refusal({ reason: 'reconciler: overdue by 1 s', by: 'reconciler', operator: 'ui:jane' })).toMatch(/engine's own reconciler/);
  });
  test('the reconciler names itself and its reason; then it is an automatic retry, bounded', () => {
    expect(refusal({ reason: 'reconciler: overdue by 180 s', operator: RECONCILER_OPERATOR, by: 'reconciler' })).toBeNull();
    expect(refusal({ reason: 'reconciler: overdue by 180 s', operator: RECONCILER_OPERATOR })).toBeNull();
    expect(refusal({ reason: 'just because', operator: RECONCILER_OPERATOR, by: 'reconciler' })).toMatch(/reconciler's reason starts with "reconciler: "/);
    expect(refusal({ reason: 'reconciler: overdue by 180 s', operator: RECONCILER_OPERATOR, by: 'operator' })).toMatch(/not an operator/);
    expect(refusal({ reason: 'reconciler: overdue by 180 s', operator: RECONCILER_OPERATOR }, { ...waiting, automaticRetries: 3 })).toMatch(/automatic retries are used up/);
    // An operator's retry is not bounded by the automatic retries.
    expect(refusal({ reason: 'database restored', operator: 'ui:jane' }, { ...waiting, automaticRetries: 3 })).toBeNull();
  });
  test('a request without a reason or with an unknown by is refused', () => {
    expect(refusal({ operator: 'ui:jane', reason: ' ' })).toBe('a reason is required');
    expect(refusal({ operator: 'ui:jane', reason: 'x', by: 'robot' })).toBe('by must be operator or reconciler');
  });
});
