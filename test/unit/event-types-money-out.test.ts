import { EVENT_TYPES } from '../../src/domain/event-types';

// GET /v1/event-types describes the events of money out (issue 10): every payout and refund event the
// workflows emit is listed once, with a description a merchant can act on.

const MONEY_OUT = ['payout.initiated', 'payout.held_for_review', 'payout.succeeded', 'payout.failed', 'payout.reversed', 'refund.succeeded', 'refund.failed'];

test('every payout and refund event type is listed, once, with a description', () => {
  const types = EVENT_TYPES.map((t) => t.type);
  expect(types).toEqual(expect.arrayContaining(MONEY_OUT));
  expect(new Set(types).size).toBe(types.length);
  for (const t of EVENT_TYPES.filter((e) => /^(payout|refund)\./.test(e.type))) {
    expect(t.type).toMatch(/^(payout|refund)\.[a-z_]+$/);
    expect(t.description.trim().length).toBeGreaterThan(10);
    expect(t.description).toMatch(/\.$/);
  }
});
