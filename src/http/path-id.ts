import { ApiError } from '../domain/errors';
import { ID_PREFIX, isIdOf, type IdKind } from '../domain/ids';

const NOUN: Partial<Record<IdKind, string>> = {
  charge: 'charge',
  event: 'event',
  webhookEndpoint: 'webhook endpoint',
  delivery: 'webhook delivery',
  webhookRecovery: 'webhook recovery',
  payout: 'payout',
  refund: 'refund',
  settlement: 'settlement',
  dispute: 'dispute',
};

/**
 * The `:id` path parameter, provided it has the shape of an id of `kind` (ids.ts). One that does not
 * was never issued: 404 `not_found` (as for an unknown id, so the answer tells nothing more), without
 * a query, and without echoing the crafted text. Call it first in the handler, before any write.
 */
export function pathId(params: Record<string, string | undefined>, kind: IdKind, name = 'id'): string {
  const id = params[name] ?? '';
  if (!isIdOf(kind, id)) {
    throw new ApiError('not_found', `No such ${NOUN[kind] ?? kind}: its ids are "${ID_PREFIX[kind]}" followed by 24 letters and digits.`, { param: name });
  }
  return id;
}
