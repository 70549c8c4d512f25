import type { RailResource, RailStatus, RailStatusAmount } from '../partner-rail';
import { fromAggregatorAmount } from './amount';
import { classifyError, UNSPECIFIED_REASON } from './errors';
import { instructionsOf } from './instructions';

/**
 * The aggregator's objects as RailStatus (docs/aggregator.md, "Status"), for a status answer and a
 * webhook's `data` alike. Each resource has Flutterwave's own vocabulary:
 *
 * | resource | pending | succeeded | failed | the failure's words |
 * |---|---|---|---|---|
 * | collection (charge) | `pending` (a bank transfer still open: with its instructions) | `successful` | `failed`, `cancelled` | `processor_response` |
 * | disbursement (transfer) | `NEW`, `PENDING` | `SUCCESSFUL` | `FAILED` | `complete_message` |
 * | refund | `pending` | `completed` | `failed` | `complete_message` |
 *
 * A failure's reason is its `failure_code` (the model's addition) or the table's code for its words
 * (src/rail/aggregator/errors.ts), else its words as a code; its class is the table's (`declined`
 * for words it does not name). A success's financialTransactionId is the aggregator's `id`; the
 * amount and currency are read back to minor units when readable (a refund's amount is its
 * `amount_refunded`), left out otherwise, never guessed.
 */

const VOCABULARY: Record<RailResource, { pending: readonly string[]; succeeded: readonly string[]; failed: readonly string[]; words: string; amount: string }> = {
  collection: { pending: ['pending'], succeeded: ['successful'], failed: ['failed', 'cancelled'], words: 'processor_response', amount: 'amount' },
  disbursement: { pending: ['new', 'pending'], succeeded: ['successful'], failed: ['failed'], words: 'complete_message', amount: 'amount' },
  refund: { pending: ['pending'], succeeded: ['completed'], failed: ['failed'], words: 'complete_message', amount: 'amount_refunded' },
};

/** The answer's envelope `{status, message, code?, data, meta?}`, undefined when the body is not one. */
export interface ReadEnvelope {
  status: string;
  message: string | undefined;
  code: string | undefined;
  data: unknown;
  meta: unknown;
}

export function envelopeOf(json: unknown): ReadEnvelope | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const b = json as Record<string, unknown>;
  if (b.status !== 'success' && b.status !== 'error') return undefined;
  return {
    status: b.status,
    message: typeof b.message === 'string' ? b.message : undefined,
    code: typeof b.code === 'string' ? b.code : undefined,
    data: b.data,
    meta: b.meta,
  };
}

function amountOf(data: Record<string, unknown>, field: string): RailStatusAmount {
  if (typeof data.currency !== 'string' || data.currency.trim() === '') return {};
  const currency = data.currency.trim().toUpperCase();
  const amount = fromAggregatorAmount(data[field], currency);
  return amount === undefined ? { currency } : { amount, currency };
}

/** An object of `resource` (a charge, a transfer, a refund) as a RailStatus; undefined when it is not one (no status, one we do not know). */
export function parseAggregatorStatus(resource: RailResource, data: unknown): RailStatus | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const d = data as Record<string, unknown>;
  if (typeof d.status !== 'string') return undefined;
  const word = d.status.trim().toLowerCase();
  const vocabulary = VOCABULARY[resource];
  if (vocabulary.pending.includes(word)) {
    const meta = typeof d.meta === 'object' && d.meta !== null ? (d.meta as { authorization?: unknown }) : undefined;
    const instructions = resource === 'collection' && typeof d.currency === 'string' ? instructionsOf(meta?.authorization, d.currency.trim().toUpperCase()) : undefined;
    return instructions ? { status: 'pending', instructions } : { status: 'pending' };
  }
  if (vocabulary.succeeded.includes(word)) {
    const id = typeof d.id === 'number' || typeof d.id === 'string' ? String(d.id) : '';
    return { status: 'succeeded', financialTransactionId: id, ...amountOf(d, vocabulary.amount) };
  }
  if (vocabulary.failed.includes(word)) {
    const words = d[vocabulary.words];
    const failure = d.failure_code !== undefined || (typeof words === 'string' && words.trim() !== '') ? classifyError(d.failure_code, words) : { reason: UNSPECIFIED_REASON, failureClass: 'declined' as const };
    const cancelled = word === 'cancelled' && failure.reason === UNSPECIFIED_REASON ? { reason: 'CUSTOMER_DECLINED', failureClass: 'declined' as const } : undefined;
    const { reason, failureClass } = cancelled ?? failure;
    return { status: 'failed', reason, failureClass, ...amountOf(d, vocabulary.amount) };
  }
  return undefined;
}
