import { resolutionRequestRefusal } from '../../src/domain/charge-resolution';
import { settleLateRefusal } from '../../src/domain/payment-review';
import { plainLine } from '../../src/domain/plain-text';

// Issue 43 (Low): `evidence` skipped the plain-text rule of an operator's name and reason. It goes to
// the audit row and in front of operators: a bidi override or a line break is refused at the validator.

const who = { operator: 'ops@example.com', reason: 'checked with the partner' };
const VALIDATORS: Array<[string, (evidence: string) => string | null]> = [
  ['resolveCharge', (evidence) => resolutionRequestRefusal({ ...who, as: 'succeeded', evidence })],
  ['settleLateAnswer', (evidence) => settleLateRefusal({ ...who, action: 'credit', evidence })],
];

describe.each(VALIDATORS)('%s: evidence', (_, refusal) => {
  test.each([
    ['a bidi override', 'FT-1\u202e99', 'U+202E'],
    ['a zero-width space', 'FT-\u200b1', 'U+200B'],
    ['a tab', 'FT-1\tSUCCESSFUL', 'U+0009'],
    ['a newline', 'FT-1\nSUCCESSFUL', 'U+000A'],
    ['a line separator', 'FT-1\u2028x', 'U+2028'],
  ])('%s is refused, named', (_what, evidence, code) => {
    expect(refusal(evidence)).toBe(`"evidence" must be plain text on one line: it contains ${code} (a control, format or line-separator character, or a broken surrogate)`);
  });
  test('a transaction id or a statement line on one line passes', () => {
    expect(refusal('FT-5550001')).toBeNull();
    expect(refusal('2026-11-27;FT-5550001;SUCCESSFUL;15000;GHS')).toBeNull();
  });
});


describe('plainLine: text passed on rather than refused (a reviewFlag reason)', () => {
  test('each run of non-plain characters becomes one space; plain text is returned as it is', () => {
    expect(plainLine('said\u202eDIAP\r\nsecond line\u200b!')).toBe('said DIAP second line !');
    expect(plainLine('  a plain reason, kept as sent  ')).toBe('  a plain reason, kept as sent  ');
    expect(plainLine('a\u2028b\u0000c\ud800d')).toBe('a b c d');
  });
});
