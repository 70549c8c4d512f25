/**
 * Issue 31, finding 7: the list query of a bulk action is never an unparsed string concatenation.
 * `A) OR (B` used to become `(A) OR (B) AND MerchantId = …`, which selects B of every merchant; it is
 * refused now, as is any query whose quotes or parentheses do not balance, and the code's own clauses
 * (the run state the command acts on, the merchant) stand outside the operator's parentheses.
 */
import { bulkQuery, queryProblem, runStateAccepts } from '../../src/services/bulk-query';
import { BULK_POLICY, MONEY_MOVING_COMMANDS } from '../../src/services/bulk-policy';
import { OPERATOR_COMMANDS } from '../../src/cli/operator-actions';

const MER = 'mer_0123456789ABCDEFGHIJabcd';

test('the code adds the run state and the merchant outside the operator query, in parentheses', () => {
  expect(bulkQuery("PaymentStatus = 'held_for_review'", MER)).toBe(`ExecutionStatus = 'Running' AND MerchantId = '${MER}' AND (PaymentStatus = 'held_for_review')`);
  expect(bulkQuery('  NeedsAttention = true  ')).toBe("ExecutionStatus = 'Running' AND (NeedsAttention = true)");
  expect(bulkQuery("PaymentStatus = 'succeeded'", undefined, 'completed')).toBe("ExecutionStatus = 'Completed' AND (PaymentStatus = 'succeeded')");
  expect(bulkQuery("PaymentStatus = 'pending'", MER, 'ended')).toBe(
    `ExecutionStatus IN ('Terminated', 'Failed', 'TimedOut', 'Canceled') AND MerchantId = '${MER}' AND (PaymentStatus = 'pending')`,
  );
});

test.each([
  ["NeedsAttention = true) OR (PaymentStatus = 'held_for_review'", /closes a parenthesis it never opened/],
  ['A) OR (B', /closes a parenthesis it never opened/],
  ["(PaymentStatus = 'pending'", /leaves 1 parenthesis open/],
  ["PaymentStatus = 'pending", /unclosed ' quote/],
  ['PaymentStatus = "pending', /unclosed " quote/],
  ["MerchantId = 'x\\' OR MerchantId = 'y'", /backslash/],
  ["PaymentStatus = 'pending'\u0000", /control characters/],
  ["PaymentStatus = 'pending' ORDER BY StartTime", /ORDER BY/],
  ['   ', /must not be empty/],
  // Issue 43: a comment hides a parenthesis from the count but not from the server's parser.
  ["/* ( */ PaymentStatus = 'pending') OR (MerchantId != 'x' /* ) */", /must not contain a comment \(\/\* at character 1\)/],
  ["PaymentStatus = 'pending' */", /must not contain a comment \(\*\/ at character 27\)/],
  ["PaymentStatus = 'pending' -- ) OR (A = 1", /must not contain a comment \(-- at character 27\)/],
  ["PaymentStatus = 'pending' # )", /must not contain a comment \(# at character 27\)/],
])('refused: %j', (query, message) => {
  expect(() => bulkQuery(query, MER)).toThrow(message);
});

test('parentheses and quotes inside a string do not count; balanced queries pass', () => {
  expect(queryProblem("Reason = 'a) OR (b' AND (A = 1 OR (B = 2))")).toBeNull();
  expect(queryProblem("Reason = 'it''s (fine'")).toBeNull();
  expect(queryProblem('Reason = "x)" AND `Custom Attr` = 1')).toBeNull();
  expect(queryProblem("Reason = 'order by' AND A = 1")).toBeNull();
  expect(queryProblem('A = 1\nAND B = 2')).toBeNull();
  // Comment marks inside a string are text.
  expect(queryProblem("Reason = '/* -- # */' AND A = 1")).toBeNull();
});

test('a merchant must be a merchant id: no quote can reach the query', () => {
  expect(() => bulkQuery('A = 1', "mer_x' OR 'a' = 'a")).toThrow(/--merchant must be a merchant id/);
});

test('run states as status.name spells them', () => {
  expect(runStateAccepts('running', 'RUNNING')).toBe(true);
  expect(runStateAccepts('running', 'COMPLETED')).toBe(false);
  expect(runStateAccepts('ended', 'CANCELLED')).toBe(true);
  expect(runStateAccepts('ended', 'TIMED_OUT')).toBe(true);
  expect(runStateAccepts('ended', 'CONTINUED_AS_NEW')).toBe(false);
});

test('every operator command has a bulk policy; the money-moving list is written down', () => {
  expect(Object.keys(BULK_POLICY).sort()).toEqual(Object.keys(OPERATOR_COMMANDS).sort());
  expect([...MONEY_MOVING_COMMANDS].sort()).toEqual(
    ['charges resolve', 'charges reverse', 'payments restart', 'payments settle-late', 'payouts approve', 'payouts reject', 'payouts reverse', 'settlements retry'].sort(),
  );
});
