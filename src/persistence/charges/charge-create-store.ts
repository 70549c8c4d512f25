import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChargeRecord } from '../../domain/charge';
import { insertAcceptedCharge } from './charge-store';
import { rowToRecord } from './charge-mapping';
import { Charge } from '../entities';
import { claimIdempotencyKey, storeIdempotentAnswer, type Claim, type IdempotencyScope } from '../idempotency-store';
import type { Orm } from '../orm';

export interface CreateAnswer {
  status: number;
  body: string;
}

export type ChargeWrite = { kind: 'written'; charge: ChargeRecord; answer: CreateAnswer } | Exclude<Claim, { kind: 'claimed' }>;

/**
 * POST /v1/charges' one database transaction: claims the Idempotency-Key, stores the answer, and
 * writes the charge, its pending hold and `transaction.created` (insertAcceptedCharge: the event
 * counter last). All of it commits together, or nothing does: there is never a charge without its
 * stored answer, nor an answer without its charge.
 *
 * Another request with the same key gets `in_use` while this transaction is open and the stored
 * answer (`replay`, or `reused` for another body) once it committed; if it rolled back, nothing was
 * claimed. A claim left in flight by a create from before this path (update-with-start) is taken over
 * once its lock expired, with its charge id; when that charge was already written (by its workflow),
 * it is answered as stored and not written again.
 */
export interface NewChargeSteps {
  /** Before anything of a new charge is written (live limits); throwing rolls the whole create back, key claim included. */
  check?(em: EntityManager, charge: ChargeRecord): Promise<void>;
  /** After the charge is written, in the same transaction (its sealed counterparty). */
  written?(em: EntityManager, charge: ChargeRecord): Promise<void>;
}

export async function writeChargeOnce(
  orm: Orm,
  scope: IdempotencyScope,
  requestHash: string,
  draft: ChargeRecord,
  answerFor: (charge: ChargeRecord) => CreateAnswer,
  steps: NewChargeSteps = {},
): Promise<ChargeWrite> {
  return orm.em.fork().transactional(async (em): Promise<ChargeWrite> => {
    const claim = await claimIdempotencyKey(em, scope, requestHash, draft.id);
    if (claim.kind !== 'claimed') return claim;
    const existing = claim.resourceId === draft.id ? null : await em.findOne(Charge, { id: claim.resourceId });
    const charge = existing ? rowToRecord(existing) : { ...draft, id: claim.resourceId };
    if (!existing) await steps.check?.(em, charge);
    const answer = answerFor(charge);
    // The key's row is this transaction's already; the hot rows (balances, event counter) come last.
    await storeIdempotentAnswer(em, scope, answer.status, answer.body);
    if (!existing) {
      await steps.written?.(em, charge);
      await insertAcceptedCharge(em, charge);
    }
    return { kind: 'written', charge, answer };
  });
}
