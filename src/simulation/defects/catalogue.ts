import { randomUUID } from 'node:crypto';
import type { ChargeTransitionRequest } from '../../domain/charge';
import type { RailStepRequest } from '../../domain/live-rail';
import type { RefundTransitionRequest } from '../../domain/refund';
import type { RailResource } from '../../rail/partner-rail';
import { endedWithoutMoney, lateSubject } from '../../persistence/partner/late-answer-store';
import { MomoPartnerRail } from '../../rail/momo-adapter';
import { parseMomoAmount } from '../../rail/momo-amount';
import { chargeMoreFee, postAgain, removeTransfer } from './ledger-tamper';
import type { DefectTarget } from './target';

/**
 * The defect catalogue (issue 44: "double submit, dropped late success, double refund, fee
 * miscomputed, overdraft race, a webhook sent unsigned, a sequence gap"), and issue 33's first
 * defect. Each is a bug a payments engine is known to ship, put into the running engine through its
 * own seams (the worker's activity hooks, its outgoing webhook requests, the API's database driver),
 * never through a test double. Each answers a function that removes it. test/integration/
 * simulation-catalogue-{books,edges}.test.ts shows each caught, and by which invariant (docs/simulation.md,
 * "The defect catalogue").
 */

/** The succeeded charge a real `applyChargeTransition` just committed, or null. */
function succeededCharge(result: unknown, args: unknown[]): string | null {
  const request = args[0] as ChargeTransitionRequest;
  return request.to === 'succeeded' && (result as { status?: string } | null)?.status === 'succeeded' ? request.chargeId : null;
}

/**
 * `skip-charge-posting`, "a transition skips its posting": once a charge's move to `succeeded` has
 * committed, its `capture` transfer's entries are deleted and their amounts taken back out of the
 * balance rows. Caught by the balances invariant.
 */
export function injectSkippedPosting(target: DefectTarget): () => void {
  return target.hooks.afterActivity('applyChargeTransition', async (result, args) => {
    const chargeId = succeededCharge(result, args);
    if (chargeId) await removeTransfer(target.orm, `${chargeId}:capture`);
    return result;
  });
}

/**
 * `double-submit` (and `partner-pays-twice`, its disbursements only): once the real `railSubmit` has
 * had a live payment accepted, the same request (amount, currency, party, our payment id as
 * externalId) goes to the fake partner again under a new reference, once per payment, straight to the
 * partner: our books never hear of it, the partner pays (or collects) twice. Only the partner-books
 * invariant can see it.
 */
export function injectDoubleSubmit(target: DefectTarget, products: readonly RailResource[] = ['collection', 'disbursement']): () => void {
  const fake = target.fakePartner;
  if (!fake) throw new Error('a double-submit defect needs the engine\'s fake partner');
  // Its callbacks go nowhere (a closed port): the copy is the partner's, not ours.
  const adapter = new MomoPartnerRail(fake.partnerConfig({ callbackBaseUrl: 'http://127.0.0.1:9', callbackSecret: 'double-submit', timeoutMs: 2_000 }));
  const sent = new Set<string>();
  const remove = target.hooks.afterActivity('railSubmit', async (result, args) => {
    const request = args[0] as RailStepRequest;
    if (!products.includes(request.product) || (result as { kind?: string } | null)?.kind !== 'accepted' || sent.has(request.paymentId)) return result;
    const [reference] = await target.orm.em.fork().execute<Array<{ reference_id: string }>>('select reference_id::text as reference_id from rail_references where payment_id = ?', [request.paymentId]);
    const original = reference && fake.transaction(request.product, reference.reference_id);
    const party = request.product === 'collection' ? original?.state.payer : original?.state.payee;
    const amount = original && parseMomoAmount(original.state.amount, original.state.currency);
    if (!original || !party || amount === undefined) return result;
    sent.add(request.paymentId);
    const message = request.product === 'collection' ? original.state.payerMessage : original.state.payeeNote;
    await adapter.submit(request.product, { referenceId: randomUUID(), amount, currency: original.state.currency, externalId: original.state.externalId, party, message: message ?? '' });
    return result;
  });
  return () => {
    remove();
    void adapter.close();
  };
}

/**
 * `dropped-late-success`: the partner's SUCCESSFUL for a payment we ended without money (failed,
 * expired) is read and dropped: `compareLateAnswer` answers "agrees" without recording the late
 * money or opening its review. The customer paid, the merchant is never credited, nobody is told.
 * Caught by the partner-books invariant.
 */
export function injectDroppedLateSuccess(target: DefectTarget): () => void {
  return target.hooks.aroundActivity('compareLateAnswer', async (args, run) => {
    const request = args[0] as { paymentId: string; status: { status: string } };
    const subject = request.status.status === 'succeeded' ? await lateSubject(target.orm, request.paymentId) : null;
    if (!subject || !endedWithoutMoney(subject.kind, subject.status)) return run();
    return { verdict: 'agrees', ourStatus: subject.status, kind: subject.kind };
  });
}

/**
 * `double-refund`: once a refund's move to `succeeded` has committed, its money leaves a second time
 * (its reserve and post transfers posted again). Caught by the balances invariant (and the ledger
 * check's resource-level checks).
 */
export function injectDoubleRefund(target: DefectTarget): () => void {
  return target.hooks.afterActivity('applyRefundTransition', async (result, args) => {
    const request = args[0] as RefundTransitionRequest;
    if (request.to === 'succeeded' && (result as { status?: string } | null)?.status === 'succeeded') await postAgain(target.orm, [`${request.refundId}:reserve`, `${request.refundId}:post`]);
    return result;
  });
}

/**
 * `fee-miscomputed`: a charge's platform fee taken at twice its rate when it is captured (its row, its
 * capture transfer and the balances all agree with each other). Caught by the reference model alone,
 * which reckons each fee from the published rates.
 */
export function injectFeeMiscomputed(target: DefectTarget): () => void {
  return target.hooks.afterActivity('applyChargeTransition', async (result, args) => {
    const chargeId = succeededCharge(result, args);
    if (!chargeId) return result;
    const [charge] = await target.orm.em.fork().execute<Array<{ fee_platform: string }>>('select fee_platform::text as fee_platform from charges where id = ?', [chargeId]);
    if (charge && Number(charge.fee_platform) > 0) await chargeMoreFee(target.orm, chargeId, Number(charge.fee_platform));
    return result;
  });
}

/** The payout create's read of the available balance (payout-create-store.ts `lockAndCover`), whitespace collapsed. */
const COVER_READ = /^select amount::text as amount from account_balances where merchant_id = \? and environment = \? and currency = \? and account = \? for update$/;

/**
 * `overdraft-race`: the payout create reads the available balance without its row lock (FOR UPDATE
 * dropped) and takes 200 ms before it reserves: concurrent payouts each see the balance before the
 * others' reservations and all pass the check. Patched into the driver of the ORM the API queries
 * through (only that read is changed). Caught by "payouts at once never overdraw" in a burst of payouts.
 */
export function injectOverdraftRace(target: DefectTarget): () => void {
  const orm = target.engineOrm;
  if (!orm) throw new Error('the defect overdraft-race needs the ORM of the engine\'s API');
  const driver = orm.em.getDriver() as unknown as { execute: (query: unknown, ...rest: unknown[]) => Promise<unknown> };
  const original = driver.execute;
  const patched = async function (this: unknown, query: unknown, ...rest: unknown[]) {
    if (typeof query !== 'string' || !COVER_READ.test(query.replace(/\s+/g, ' ').trim())) return original.call(this, query, ...rest);
    const result = await original.call(this, query.replace(/\s+for update\s*$/i, ''), ...rest);
    await new Promise((resolve) => setTimeout(resolve, 200));
    return result;
  };
  driver.execute = patched;
  return () => {
    if (driver.execute === patched) driver.execute = original;
  };
}

/**
 * `unsigned-webhook`: webhook requests leave without their X-Service-Signature (the rest of the
 * request as the engine made it). Caught by the deliveries invariant: the receivers verify every
 * request against the endpoint's secrets.
 */
export function injectUnsignedWebhook(target: DefectTarget): () => void {
  const hooks = target.sendHooks;
  if (!hooks) throw new Error('the defect unsigned-webhook needs the engine\'s webhook send hooks');
  return hooks.beforeSend((headers) => Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'x-service-signature')));
}

/**
 * `sequence-gap`: once a charge's transition has committed, its merchant's event counter is moved
 * one further, as a sequence taken and never written would: the next event leaves a gap. Caught by
 * the event-sequence invariant.
 */
export function injectSequenceGap(target: DefectTarget): () => void {
  return target.hooks.afterActivity('applyChargeTransition', async (result, args) => {
    const request = args[0] as ChargeTransitionRequest;
    if ((result as { status?: string } | null)?.status !== request.to) return result;
    await target.orm.em.fork().execute(
      `update event_counters c set last_sequence = last_sequence + 1 from charges ch where ch.id = ? and c.merchant_id = ch.merchant_id and c.environment = ch.environment`,
      [request.chargeId],
    );
    return result;
  });
}
