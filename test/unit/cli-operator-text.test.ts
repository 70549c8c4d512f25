import { auditedActor, changeActor, operatorName, requiredReason } from '../../src/cli/shared';

/**
 * The CLI's --reason and --operator are checked by the same rules as every update validator
 * (src/domain/operator-action.ts, issue 31 finding 5): plain text on one line, within their limits,
 * and not one of the engine's own names; refused before anything is done.
 */

test.each([
  ['a control character', 'customer\u0001asked'],
  ['a line break', 'line one\nline two'],
  ['a bidi override', 'refund \u202Eevil'],
  ['too long', 'x'.repeat(501)],
])('--reason with %s is refused', (_what, reason) => {
  expect(() => requiredReason({ reason })).toThrow(/--reason/);
  expect(() => auditedActor({ reason, operator: 'jane' })).toThrow(/--reason/);
  expect(() => changeActor({ reason, operator: 'jane' }, 'keys roll')).toThrow(/--reason/);
});

test.each([
  ['a control character', 'ja\u0007ne'],
  ['an engine name', 'system:reconciler'],
  ['too long', 'j'.repeat(101)],
])('--operator with %s is refused', (_what, operator) => {
  expect(() => operatorName({ operator })).toThrow(/--operator/);
});

test('plain text passes, trimmed, multibyte included', () => {
  expect(requiredReason({ reason: '  partner statement line 14, côte d’ivoire ' })).toBe('partner statement line 14, côte d’ivoire');
  expect(operatorName({ operator: ' Jane Doe ' })).toBe('Jane Doe');
});
