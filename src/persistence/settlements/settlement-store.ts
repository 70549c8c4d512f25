import type { PartnerName } from '../../domain/rail-routes';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ACCOUNTS } from '../../domain/ledger';
import {
  NOTHING_TO_SETTLE,
  settlementEventType,
  settlementJson,
  type SettlementNothing,
  type SettlementRecord,
  type SettlementSweepRequest,
  type SettlementTransitionRequest,
} from '../../domain/settlement';
import { sealAccountNumber, type SealedAccountNumber } from '../../domain/settlement-account';
import { settlementSweepTransfer, settlementTransfersFor } from '../../domain/settlement-ledger';
import type { Orm } from '../orm';
import type { LiveRail } from '../../domain/live-rail';
import { LIVE_RAIL_UNAVAILABLE, unansweredBatchSkip } from '../../domain/settlement-run';
import { rowToSettlement, SETTLEMENT_COLUMNS, settlementValues } from './settlement-mapping';
import { iso } from '../sql-values';
import { pendingLiveBatch } from './pending-live-batch';
import { writeStateChange } from '../state-change';
import { advanceSweepMark, unsweptSet } from './sweep-mark';
import { passGate, PaymentGateRefusedError, StaleStatusError } from '../payment-gate';

export class SettlementNotFoundError extends Error {
  constructor(readonly settlementId: string) {
    super(`settlement ${settlementId} does not exist`);
    this.name = 'SettlementNotFoundError';
  }
}

/** A batch id already used for another merchant, environment or currency than the sweep asks for. */
export class SettlementConflictError extends Error {
  constructor(readonly settlementId: string, detail: string) {
    super(`settlement ${settlementId} ${detail}`);
    this.name = 'SettlementConflictError';
  }
}

/**
 * The not-yet-swept merchant_available postings do not add up to the available balance row: the
 * ledger and the balance disagree (`ledger check` says where). Nothing is swept until they agree.
 */
export class SettlementLedgerMismatchError extends Error {
  constructor(readonly settlementId: string, balance: bigint, unswept: bigint) {
    super(`settlement ${settlementId}: the available balance is ${balance} but its unswept postings add up to ${unswept}; nothing swept (run ledger check)`);
    this.name = 'SettlementLedgerMismatchError';
  }
}

/** A batch's end refused: it is no longer pending (another end was written), or the status gate refused it (a live end without the partner's word). Final. */
export class SettlementTransitionRefusedError extends Error {
  constructor(readonly settlementId: string, from: string, to: string, why: string) {
    super(`settlement ${settlementId} cannot go from ${from} to ${to}: ${why}`);
    this.name = 'SettlementTransitionRefusedError';
  }
}

const AVAILABLE = ACCOUNTS.merchantAvailable;

/**
 * The batch's first step, in one transaction (INTERFACE "Money movement"; the issue 11 contract):
 *
 * 1. lock the merchant's available balance row of that environment and currency (FOR UPDATE): every
 *    writer of an available posting moves that row in its own transaction, so while it is held the
 *    set of committed postings cannot change, and a second sweep of the same balance waits here;
 * 2. a batch already written under this id (a retried step, or a run started again) is returned as
 *    it is: nothing moves twice;
 * 3. nothing is written, and `{ kind: 'nothing', reason }` answered, when the merchant has no
 *    settlement account, its account's bank takes another currency than the batch's (banks.currency;
 *    a batch started by hand or by a run from before the settlement run skipped such balances must
 *    never pay one currency into an account of another), or the balance is not positive;
 * 4. otherwise: the batch row (`pending`, dated `created_at` = `period_end` by the database's clock
 *    while the balance row is held: every posting it sweeps is dated at or before it, every later
 *    posting on the balance at or after it; its destination the merchant's bank code and sealed
 *    number, copied as they are: the number is never opened here; a merchant's number still in plain
 *    text, from before migration 20261125000005, is sealed with `box` first, on the merchant's row
 *    too), a `settlement_entries` mark on every not-yet-swept
 *    merchant_available posting (their sum must equal the balance row, else
 *    SettlementLedgerMismatchError and nothing is written), the sweep transfer (available →
 *    reserved, in transit) with its balance rows, `settlement.created`, and the mark of the sweep's
 *    own available posting, so the unswept postings keep adding up to the balance. The primary key
 *    of `settlement_entries` is the posting's: two batches never sweep the same money. The unswept
 *    postings are read from the balance's sweep mark on (issue 34: sweep-mark.ts, the whole set
 *    only when those do not add up to the balance), and the mark moves to the sweep's own posting.
 *
 * `onCommitted` runs once, after the commit of a batch that was written.
 */
export async function sweepSettlement(
  orm: Orm,
  request: SettlementSweepRequest,
  box: { seal(plaintext: string): string },
  onCommitted: (batch: SettlementRecord) => void = () => {},
  rail: LiveRail = 'none',
  /** Called when the postings after the balance's sweep mark did not add up and the whole unswept set was read (sweep-mark.ts): worth a look. */
  onRescan: (balance: { merchantId: string; environment: string; currency: string; postings: number }) => void = () => {},
  /**
   * Issue 45: the live partner that takes bank transfers in a currency (RAIL_ROUTES' `bank` route),
   * recorded as the batch's `rail` so its transfer goes there; null: none takes them (nothing is
   * swept, as without a rail). Absent: the batch names no partner (the mobile-money partner's, as before).
   */
  bankPartner?: (currency: string) => { partner: PartnerName; route: string | null } | null,
): Promise<SettlementRecord | SettlementNothing> {
  let written = false;
  const result = await orm.em.fork().transactional(async (em): Promise<SettlementRecord | SettlementNothing> => {
    const scope = [request.merchantId, request.environment, request.currency] as const;
    const balances = await em.execute<{ amount: string }[]>(
      `select amount::text as amount from account_balances where merchant_id = ? and environment = ? and currency = ? and account = ? for update`,
      [...scope, AVAILABLE],
    );
    const existing = await em.execute<Record<string, unknown>[]>(`select * from settlements where id = ?`, [request.settlementId]);
    if (existing.length > 0) return sameBatch(rowToSettlement(existing[0]), request);

    // The merchant's row locked (no key update: writers of ledger and balance rows only key-share
    // it) so the bank and number read are the ones the batch copies, and a plain number is sealed once.
    // The bank's currency joined in: only a balance in that currency may be swept into the account.
    const merchants = await em.execute<MerchantAccountRow[]>(
      `select m.settlement_bank_code as bank, m.settlement_account_sealed as sealed, m.settlement_account_masked as masked, m.settlement_account_number as plaintext,
              k.currency as bank_currency
       from merchants m left join banks k on k.code = m.settlement_bank_code
       where m.id = ? for no key update of m`,
      [request.merchantId],
    );
    if (merchants.length === 0) return nothing(NOTHING_TO_SETTLE.noMerchant);
    const bank = merchants[0].bank;
    if (!bank || (merchants[0].sealed === null && merchants[0].plaintext === null)) return nothing(NOTHING_TO_SETTLE.noAccount);
    if (merchants[0].bank_currency !== request.currency) return nothing(NOTHING_TO_SETTLE.currencyMismatch);
    // The run's skip rules, in its order (settlement-balances.ts skipReason), here too: a batch
    // started otherwise (`settlements retry`, by hand) does not sweep live money that no rail can
    // pay (it would fail at once and announce settlement.created and settlement.failed for money
    // that never moved).
    if (request.environment === 'live' && rail === 'none') return nothing(LIVE_RAIL_UNAVAILABLE);
    const routed = request.environment === 'live' && bankPartner ? bankPartner(request.currency) : undefined;
    if (routed === null) return nothing(LIVE_RAIL_UNAVAILABLE);
    const partner = routed?.partner;
    if (request.environment === 'live') {
      // Issue 29: while another live batch of this balance waits for the partner's word, nothing more is swept.
      const open = await pendingLiveBatch(em, request.merchantId, request.currency, request.settlementId);
      if (open) return nothing(unansweredBatchSkip(open));
    }
    const balance = BigInt(balances[0]?.amount ?? '0');
    if (balance <= 0n) return nothing(NOTHING_TO_SETTLE.noBalance);
    if (balance > BigInt(Number.MAX_SAFE_INTEGER)) return nothing(NOTHING_TO_SETTLE.tooLarge);

    // Issue 34: the postings at or after the balance's sweep mark, not the whole history (sweep-mark.ts).
    const unswept = await unsweptSet(em, scope, balance);
    if (unswept.rescanned) onRescan({ merchantId: request.merchantId, environment: request.environment, currency: request.currency, postings: unswept.count });
    if (unswept.total !== balance) throw new SettlementLedgerMismatchError(request.settlementId, balance, unswept.total);

    const account = await sealedAccountOf(em, request.merchantId, merchants[0], box);
    // The batch is dated by the database while it holds the balance row (not at request.at, the
    // workflow's time, which may be long before: a retried step): every posting it sweeps committed
    // before, so is dated at or before it (event-log.ts dates postings once the merchant's counter is
    // held, before commit); every posting on this balance committed after the sweep waited for its
    // lock, so is dated at or after it.
    const [{ cut }] = await em.execute<{ cut: Date | string }[]>(`select date_trunc('milliseconds', clock_timestamp()) as cut`);
    const at = iso(cut);
    const batch: SettlementRecord = {
      id: request.settlementId,
      merchantId: request.merchantId,
      environment: request.environment,
      currency: request.currency,
      status: 'pending',
      amount: Number(balance),
      entryCount: unswept.count,
      periodEnd: at,
      destinationBankCode: bank,
      destinationAccountSealed: account.sealed,
      destinationAccountMasked: account.masked,
      paidAt: null,
      failureClass: null,
      runId: request.runId,
      sandboxOutcome: request.environment === 'sandbox' ? request.outcome : null,
      createdAt: at,
      updatedAt: at,
    };
    await em.execute(`insert into settlements (${SETTLEMENT_COLUMNS.join(', ')}) values (${SETTLEMENT_COLUMNS.map(() => '?').join(', ')})`, settlementValues(batch));
    // The batch's partner (issue 45): its reference is chosen with it, and every call about it goes there.
    // Issue 46: with the partners it may fail over to, in the route's order.
    if (partner) await em.execute(`update settlements set rail = ?, rail_route = ? where id = ?`, [partner, routed?.route ?? null, batch.id]);
    const marked = await em.execute<{ n: number }[]>(
      `with swept as (insert into settlement_entries (settlement_id, transfer_id, account, created_at) select ?, le.transfer_id, le.account, le.created_at ${unswept.from} returning 1)
       select count(*)::int as n from swept`,
      [batch.id, ...scope, ...unswept.params],
    );
    if (Number(marked[0].n) !== batch.entryCount) throw new Error(`settlement ${batch.id}: ${marked[0].n} postings marked, ${batch.entryCount} counted under the balance lock`);

    const sweep = settlementSweepTransfer(batch);
    await writeSettlementStateChange(em, batch, at);
    await em.execute(
      `insert into settlement_entries (settlement_id, transfer_id, account, created_at) select ?, transfer_id, account, created_at from ledger_entries where transfer_id = ? and account = ?`,
      [batch.id, sweep.id, AVAILABLE],
    );
    await advanceSweepMark(em, scope, sweep.id);
    written = true;
    return batch;
  });
  if (written) onCommitted(result as SettlementRecord);
  return result;
}

type MerchantAccountRow = { bank: string | null; sealed: string | null; masked: string | null; plaintext: string | null; bank_currency: string | null };

/**
 * The merchant's number as the batch copies it: sealed as stored; a plain one (a row from before
 * migration 20261125000005 that no worker start or `secrets reseal` has sealed yet) sealed now, and
 * the merchant's row (locked by the caller) sealed with it, the plain text cleared, in the sweep's
 * transaction. The plain number is never a statement parameter: a failed statement's message (logs,
 * activity failures in history) must not hold it.
 */
async function sealedAccountOf(em: EntityManager, merchantId: string, row: MerchantAccountRow, box: { seal(plaintext: string): string }): Promise<SealedAccountNumber> {
  if (row.sealed !== null && row.masked !== null) return { sealed: row.sealed, masked: row.masked };
  const account = sealAccountNumber(box, row.plaintext ?? '');
  await em.execute(`update merchants set settlement_account_sealed = ?, settlement_account_masked = ?, settlement_account_number = null where id = ?`, [
    account.sealed,
    account.masked,
    merchantId,
  ]);
  return account;
}

function nothing(reason: string): SettlementNothing {
  return { kind: 'nothing', reason };
}

function sameBatch(batch: SettlementRecord, request: SettlementSweepRequest): SettlementRecord {
  if (batch.merchantId !== request.merchantId || batch.environment !== request.environment || batch.currency !== request.currency) {
    throw new SettlementConflictError(
      batch.id,
      `belongs to ${batch.merchantId} ${batch.environment} ${batch.currency}, not ${request.merchantId} ${request.environment} ${request.currency}`,
    );
  }
  return batch;
}

/**
 * The ledger, balance rows and event of a batch entering its current status, inside the caller's
 * transaction, in the order of state-change.ts (`data` = the settlement object).
 */
async function writeSettlementStateChange(em: EntityManager, batch: SettlementRecord, at: string, railAnswerId: string | null = null): Promise<void> {
  await writeStateChange(em, batch, settlementTransfersFor(batch, batch.status), at, {
    type: settlementEventType(batch.status),
    resourceType: 'settlement',
    dataJson: settlementJson(batch),
    railAnswerId,
  });
}

/**
 * The batch's end, in one transaction: under the batch's row lock, the row (`paid` with `paid_at`,
 * or `failed` with its failure class), the transfer (post to settlement_clearing, or release to
 * available) with its balance rows, and `settlement.paid` or `settlement.failed`. A batch already in
 * `to` is returned as stored and nothing is written (a retry of this very step). The end moves from
 * `pending` through the status gate (payment-gate.ts): a batch in another end (written by someone
 * else: a late acceptance) or a live end the partner's word does not support throw
 * SettlementTransitionRefusedError. `onCommitted` runs once, after the commit of a change that was written.
 */
export async function applySettlementTransition(
  orm: Orm,
  request: SettlementTransitionRequest,
  onCommitted: (batch: SettlementRecord) => void = () => {},
): Promise<SettlementRecord> {
  let applied = false;
  const record = await orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<Record<string, unknown>[]>(`select * from settlements where id = ? for update`, [request.settlementId]);
    if (rows.length === 0) throw new SettlementNotFoundError(request.settlementId);
    const before = rowToSettlement(rows[0]);
    if (before.status === request.to) return before;
    if (before.status !== 'pending') throw new SettlementTransitionRefusedError(before.id, before.status, request.to, 'the change moves from pending');
    const at = new Date(request.at).toISOString();
    const after: SettlementRecord = {
      ...before,
      status: request.to,
      paidAt: request.to === 'paid' ? at : null,
      failureClass: request.to === 'failed' ? (request.failureClass ?? 'declined') : null,
      updatedAt: at,
    };
    const { railAnswerId } = await passGate(em, {
      kind: 'settlement',
      id: after.id,
      from: 'pending',
      to: after.status,
      set: { paid_at: after.paidAt, failure_class: after.failureClass, updated_at: after.updatedAt },
    }).catch((error: unknown) => {
      if (error instanceof PaymentGateRefusedError || error instanceof StaleStatusError) throw new SettlementTransitionRefusedError(after.id, before.status, request.to, error.message);
      throw error;
    });
    await writeSettlementStateChange(em, after, at, railAnswerId);
    applied = true;
    return after;
  });
  if (applied) onCommitted(record);
  return record;
}

/** The batch if it belongs to this merchant and environment (GET /v1/settlements/{id}). */
export async function findSettlement(orm: Orm, scope: { merchantId: string; environment: string }, id: string): Promise<SettlementRecord | null> {
  const rows = await orm.em
    .fork()
    .execute<Record<string, unknown>[]>(`select * from settlements where id = ? and merchant_id = ? and environment = ?`, [id, scope.merchantId, scope.environment]);
  return rows.length === 0 ? null : rowToSettlement(rows[0]);
}

/** A batch's stored status, or null when there is no batch under the id (the settlement workflow's check of a settled-late signal). */
export async function settlementStatus(orm: Orm, id: string): Promise<string | null> {
  const rows = await orm.em.fork().execute<Array<{ status: string }>>(`select status from settlements where id = ?`, [id]);
  return rows[0]?.status ?? null;
}
