import type { ChargeTransitionRequest } from '../domain/charge';
import type { Orm } from '../persistence/orm';
import type { ActivityHooks } from './activity-hooks';

/**
 * Defects the simulation can inject on purpose, to show that it finds them (issue 33, "Proof": the
 * simulator reports an injected defect with a shrunk reproduction). Never used outside the simulator
 * and its tests.
 */
export type DefectName = 'skip-charge-posting';

export const DEFECTS: readonly DefectName[] = ['skip-charge-posting'];

/** What a defect needs from the engine: the activity hooks of its worker and the run's ORM. */
export interface DefectTarget {
  hooks: Pick<ActivityHooks, 'afterActivity'>;
  orm: Orm;
}

/**
 * "A transition skips its posting": once the real `applyChargeTransition` activity has committed a
 * charge's move to `succeeded` (its `capture` transfer, `<charge>:capture`, posted with it), the
 * transfer's ledger entries are deleted AND their amounts taken back out of `account_balances` (a row
 * left at zero with no entry behind it removed), in one transaction. The ledger still balances (a transfer's postings sum to zero) and every balance
 * row still equals the sum of its entries: only a check that compares the balances with what the
 * payments say (the balances invariant; the ledger check's resource-level checks) can see it.
 * Answers a function that removes the defect.
 */
export function injectSkippedPosting(target: DefectTarget): () => void {
  return target.hooks.afterActivity('applyChargeTransition', async (result, args) => {
    const request = args[0] as ChargeTransitionRequest;
    const state = result as { status?: string } | null;
    if (request.to !== 'succeeded' || state?.status !== 'succeeded') return result;
    await removeTransfer(target.orm, `${request.chargeId}:capture`);
    return result;
  });
}

/** Installs a defect by name; answers its remover. */
export function injectDefect(name: DefectName, target: DefectTarget): () => void {
  switch (name) {
    case 'skip-charge-posting':
      return injectSkippedPosting(target);
  }
}

/**
 * Deletes a transfer's entries and takes their amounts back out of their balance rows; a row left at
 * zero with no entry behind it goes too (as if the account had never been posted to). One transaction.
 */
async function removeTransfer(orm: Orm, transferId: string): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    const gone = await em.execute<Array<{ merchant_id: string; environment: string; currency: string; account: string; amount: string }>>(
      'delete from ledger_entries where transfer_id = ? returning merchant_id, environment, currency, account, amount',
      [transferId],
    );
    for (const row of gone) {
      const key = [row.merchant_id, row.environment, row.currency, row.account];
      await em.execute('update account_balances set amount = amount - ? where merchant_id = ? and environment = ? and currency = ? and account = ?', [row.amount, ...key]);
      await em.execute(
        `delete from account_balances b where merchant_id = ? and environment = ? and currency = ? and account = ? and amount = 0
            and not exists (select 1 from ledger_entries e where e.merchant_id = b.merchant_id and e.environment = b.environment and e.currency = b.currency and e.account = b.account)`,
        key,
      );
    }
  });
}
