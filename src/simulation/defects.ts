import { randomUUID } from 'node:crypto';
import type { ChargeTransitionRequest } from '../domain/charge';
import type { RailStepRequest } from '../domain/live-rail';
import type { Orm } from '../persistence/orm';
import type { FakePartner } from '../rail/fake-partner';
import { MomoPartnerRail } from '../rail/momo-adapter';
import { parseMomoAmount } from '../rail/momo-amount';
import type { ActivityHooks } from './activity-hooks';

/**
 * Defects the simulation can inject on purpose, to show that it finds them (issue 33, "Proof": the
 * simulator reports an injected defect with a shrunk reproduction). Never used outside the simulator
 * and its tests.
 */
export type DefectName = 'skip-charge-posting' | 'partner-pays-twice';

export const DEFECTS: readonly DefectName[] = ['skip-charge-posting', 'partner-pays-twice'];

/** What a defect needs from the engine: the activity hooks of its worker, the run's ORM, the fake partner (partner-pays-twice). */
export interface DefectTarget {
  hooks: Pick<ActivityHooks, 'afterActivity'>;
  orm: Orm;
  fakePartner?: FakePartner;
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

/**
 * "The partner pays a transfer twice" (issue 43's example of what only the partner's books show):
 * once the real `railSubmit` activity has had a live disbursement (a payout or a settlement)
 * accepted, the same transfer (amount, currency, payee, our payment id as externalId) is sent to the
 * fake partner again under a new reference, once per payment, straight to the partner (our books
 * never hear of it). The partner pays both. Our ledger, balances, transitions and workflows are all
 * as they should be: only the partner-books invariant (invariants/partner-books.ts) can see it.
 * Answers a function that removes the defect.
 */
export function injectPartnerPaysTwice(target: DefectTarget): () => void {
  const fake = target.fakePartner;
  if (!fake) throw new Error('the defect partner-pays-twice needs the engine\'s fake partner');
  // Its callbacks go nowhere (a closed port): the copy is the partner's, not ours.
  const adapter = new MomoPartnerRail(fake.partnerConfig({ callbackBaseUrl: 'http://127.0.0.1:9', callbackSecret: 'partner-pays-twice', timeoutMs: 2_000 }));
  const sent = new Set<string>();
  const remove = target.hooks.afterActivity('railSubmit', async (result, args) => {
    const request = args[0] as RailStepRequest;
    if (request.product !== 'disbursement' || (result as { kind?: string } | null)?.kind !== 'accepted' || sent.has(request.paymentId)) return result;
    const [reference] = await target.orm.em.fork().execute<Array<{ reference_id: string }>>('select reference_id::text as reference_id from rail_references where payment_id = ?', [request.paymentId]);
    const original = reference && fake.transaction('disbursement', reference.reference_id);
    const amount = original && parseMomoAmount(original.state.amount, original.state.currency);
    if (!original?.state.payee || amount === undefined) return result;
    sent.add(request.paymentId);
    await adapter.submit('disbursement', { referenceId: randomUUID(), amount, currency: original.state.currency, externalId: original.state.externalId, party: original.state.payee, message: original.state.payeeNote });
    return result;
  });
  return () => {
    remove();
    void adapter.close();
  };
}

/** Installs a defect by name; answers its remover. */
export function injectDefect(name: DefectName, target: DefectTarget): () => void {
  switch (name) {
    case 'skip-charge-posting':
      return injectSkippedPosting(target);
    case 'partner-pays-twice':
      return injectPartnerPaysTwice(target);
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
