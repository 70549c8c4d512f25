import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors';
import { ACCOUNTS } from '../../domain/ledger';
import type { PayoutRecord } from '../../domain/payout';
import { payoutReserveTransfer } from '../../domain/payout-ledger';
import type { CreateAnswer } from '../charges/charge-create-store';
import { claimIdempotencyKey, storeIdempotentAnswer, type Claim, type IdempotencyScope } from '../idempotency-store';
import { PAYOUT_COLUMNS, payoutValues, rowToPayout } from './payout-mapping';
import { writePayoutStateChange } from './payout-store';
import type { Orm } from '../orm';

export type PayoutWrite = { kind: 'written'; payout: PayoutRecord; answer: CreateAnswer } | Exclude<Claim, { kind: 'claimed' }>;

/** The merchant's review threshold (merchants.payout_review_threshold), read in the create transaction. */
async function reviewThreshold(em: EntityManager, merchantId: string): Promise<number> {
  const rows = await em.execute<{ threshold: string }[]>(`select payout_review_threshold::text as threshold from merchants where id = ?`, [merchantId]);
  return rows.length === 0 ? Number.MAX_SAFE_INTEGER : Number(rows[0].threshold);
}

/**
 * Locks the merchant's available balance row of the payout's currency (FOR UPDATE, held to commit)
 * and refuses with 422 `insufficient_balance` when it cannot cover `totalDebit`. Every payout create
 * of that merchant, environment and currency takes this lock before it reserves, so concurrent
 * creates are checked one after the other against the balance as the previous ones left it: a
 * hundred at once never overdraw it. Taken after the rows that are this payout's alone (idempotency
 * key, payout row) and in account order (`merchant_available` before `merchant_reserved`, as
 * addToBalances), so it is held only for the balance upsert, the counter with the ledger entries, the
 * event and the commit, and never in a cycle with another state change.
 */
async function lockAndCover(em: EntityManager, payout: PayoutRecord): Promise<void> {
  const rows = await em.execute<{ amount: string }[]>(
    `select amount::text as amount from account_balances
     where merchant_id = ? and environment = ? and currency = ? and account = ? for update`,
    [payout.merchantId, payout.environment, payout.currency, ACCOUNTS.merchantAvailable],
  );
  const available = rows.length === 0 ? 0n : BigInt(rows[0].amount);
  if (available < BigInt(payout.totalDebit)) {
    throw new ApiError(
      'insufficient_balance',
      `The available ${payout.currency} balance does not cover this payout's total_debit of ${payout.totalDebit} (amount plus fee). Nothing was created.`,
      { param: 'amount' },
    );
  }
}

/**
 * POST /v1/payouts' one database transaction, in the order of the charge create
 * (charge-create-store.ts): claims the Idempotency-Key, stores the answer, writes the payout row, its
 * reservation of total_debit (available → reserved: the balance rows, the available row locked and
 * checked first, then the ledger entries with the event counter) and its first event (`payout.initiated`, or
 * `payout.held_for_review` when it needs review), the event counter last. All of it commits
 * together, or nothing does: an `insufficient_balance` refusal rolls back the claim too, so the same
 * key may be retried once the balance covers it.
 *
 * `draftFor(threshold)` builds the payout with the merchant's review threshold (read here, in the
 * same transaction); `answerFor` renders the stored answer.
 */
export async function writePayoutOnce(
  orm: Orm,
  scope: IdempotencyScope,
  requestHash: string,
  proposedId: string,
  draftFor: (id: string, reviewThreshold: number) => PayoutRecord,
  answerFor: (payout: PayoutRecord) => CreateAnswer,
  steps: { check?(em: EntityManager, payout: PayoutRecord): Promise<void>; written?(em: EntityManager, payout: PayoutRecord): Promise<void> } = {},
): Promise<PayoutWrite> {
  return orm.em.fork().transactional(async (em): Promise<PayoutWrite> => {
    const claim = await claimIdempotencyKey(em, scope, requestHash, proposedId);
    if (claim.kind !== 'claimed') return claim;
    // A claim taken over from a request that died before its commit: nothing of it was written (the
    // claim and the payout commit together), so the payout is written now under the claimed id.
    const existing = await em.execute<Record<string, unknown>[]>(`select * from payouts where id = ?`, [claim.resourceId]);
    if (existing.length > 0) {
      const payout = rowToPayout(existing[0]);
      const answer = answerFor(payout);
      await storeIdempotentAnswer(em, scope, answer.status, answer.body);
      return { kind: 'written', payout, answer };
    }
    const payout = draftFor(claim.resourceId, await reviewThreshold(em, scope.merchantId));
    // Live limits (or anything else that refuses) before anything of the payout is written.
    await steps.check?.(em, payout);
    const answer = answerFor(payout);
    await storeIdempotentAnswer(em, scope, answer.status, answer.body);
    await steps.written?.(em, payout);
    await em.execute(
      `insert into payouts (${PAYOUT_COLUMNS.join(', ')}) values (${PAYOUT_COLUMNS.map(() => '?').join(', ')})`,
      payoutValues(payout),
    );
    const reserve = payoutReserveTransfer(payout);
    await insertReservation(em, payout, reserve);
    return { kind: 'written', payout, answer };
  });
}

async function insertReservation(em: EntityManager, payout: PayoutRecord, reserve: ReturnType<typeof payoutReserveTransfer>): Promise<void> {
  // writePayoutStateChange writes the balance rows, then the entries with the counter, then the
  // event; the available row is locked and checked first, right before the balance upsert.
  await writePayoutStateChange(em, payout, [reserve], payout.createdAt, () => lockAndCover(em, payout));
}
