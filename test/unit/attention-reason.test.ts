import { attentionReason, NEEDS_ATTENTION_REASON_MAX, needsAttentionPairs } from '../../src/domain/attention-reason';
import { SA, SEARCH_ATTRIBUTE_DEFINITIONS } from '../../src/domain/search-attributes';

// NeedsAttentionReason (issue 31, finding 10): one short printable line a Temporal UI column shows.

test('kind and step, one printable line of at most 100 characters', () => {
  expect(attentionReason('step gave up', 'payout -> pending')).toBe('step gave up: payout -> pending');
  expect(attentionReason('settlement failed')).toBe('settlement failed');
  expect(attentionReason('waiting', 'partner\u0000 rail\n\t(late)')).toBe('waiting: partner rail (late)');
  expect(attentionReason('activity failing', 'x'.repeat(300))).toHaveLength(NEEDS_ATTENTION_REASON_MAX);
});

test('set with NeedsAttention in one upsert, unset when it clears; registered as a Keyword', () => {
  expect(needsAttentionPairs('held for review')).toEqual([
    { key: SA.NeedsAttention, value: true },
    { key: SA.NeedsAttentionReason, value: 'held for review' },
  ]);
  expect(needsAttentionPairs(null)).toEqual([
    { key: SA.NeedsAttention, value: false },
    { key: SA.NeedsAttentionReason, value: null },
  ]);
  expect(SEARCH_ATTRIBUTE_DEFINITIONS).toContainEqual({ name: 'NeedsAttentionReason', type: 'Keyword' });
});
