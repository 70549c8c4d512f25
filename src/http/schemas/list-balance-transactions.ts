import { BALANCE_TRANSACTION_TYPES, parseBalanceTransactionId, SOURCE_KINDS, type BalanceTransactionType } from '../../domain/balance-transaction';
import { ApiError } from '../../domain/errors';
import { ID_PREFIX, isIdOf } from '../../domain/ids';
import type { BalanceTransactionQuery } from '../../persistence/ledger/balance-transaction-store';
import { createdRange, parseLimit, strictQuery } from '../../services/list-filters';
import { listCursor } from '../../services/list-cursor';

export const ALLOWED = ['limit', 'cursor', 'type', 'source', 'currency', 'created_after', 'created_before'];

/** ISO 4217 alphabetic code. Whether it is a known one is the route's question (a cached lookup). */
const CURRENCY_SHAPE = /^[A-Z]{3}$/;

const bad = (param: string, message: string) => new ApiError('invalid_request', message, { param });

/**
 * The query of GET /v1/balance-transactions, with the conventions of src/services/list-filters.ts:
 * `limit` (1–100, default 10), `cursor` (a next_cursor of this list, unchanged; strict, as
 * src/services/list-cursor.ts reads every list's), `type` (one of BALANCE_TRANSACTION_TYPES), `source` (a
 * charge, payout, refund, settlement or dispute id), `currency` (ISO 4217: three upper-case letters;
 * the route refuses one the reference list does not have), `created_after` / `created_before` (strict
 * ISO 8601, exclusive). Any other parameter, a repeated one, or a bad value is 400 `invalid_request`
 * naming it in `param`, before any query.
 */
export function parseBalanceTransactionQuery(query: Record<string, unknown>): BalanceTransactionQuery {
  const q = strictQuery(query, ALLOWED);

  const anchor = listCursor(q.cursor, (id) => parseBalanceTransactionId(id) !== null);
  const result: BalanceTransactionQuery = {
    limit: parseLimit(q.limit),
    cursor: anchor ? { createdAt: anchor.createdAt, ...parseBalanceTransactionId(anchor.id)! } : null,
    ...createdRange(q),
  };
  if (q.type !== undefined) {
    if (!(BALANCE_TRANSACTION_TYPES as readonly string[]).includes(q.type)) throw bad('type', `type must be one of: ${BALANCE_TRANSACTION_TYPES.join(', ')}.`);
    result.type = q.type as BalanceTransactionType;
  }
  if (q.source !== undefined) {
    const source = q.source;
    const kind = SOURCE_KINDS.find((k) => isIdOf(k, source));
    if (!kind) throw bad('source', `source must be the id of a charge, payout, refund, settlement or dispute (${SOURCE_KINDS.map((k) => ID_PREFIX[k]).join(', ')} followed by 24 letters and digits).`);
    result.source = { kind, id: source };
  }
  if (q.currency !== undefined) {
    if (!CURRENCY_SHAPE.test(q.currency)) throw bad('currency', 'currency must be an ISO 4217 code: three upper-case letters, e.g. GHS (see GET /v1/reference/currencies).');
    result.currency = q.currency;
  }
  return result;
}
