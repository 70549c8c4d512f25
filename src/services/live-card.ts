import { PARTNER_CALLBACK_SIGNAL } from '../domain/live-rail';
import { CARD_SUBMITTED_SIGNAL } from '../domain/live-card';
import type { FailureClass } from '../domain/failure-classes';
import { claimCardSubmission, findCardSubmission, markOtpSent, recordCardAnswer, type CardAnswerRecord } from '../persistence/charges/card-submission-store';
import { recordRailAnswer, submitAnswer } from '../persistence/partner/rail-answer-store';
import { claimCallbackSignal } from '../persistence/partner/callback-signal-store';
import { cardBrand, cardProblem, type CardChargeAnswer, type CardInput } from '../rail/aggregator/card';
import { lastFour } from '../rail/aggregator/card-input';
import { RailRequestInvalid } from '../rail/rail-errors';
import { withinDeadline } from '../temporal/deadline';
import type { ServiceDeps } from './context';

/**
 * A live card charge's hosted page (issue 45; docs/checkout.md, "Live cards"): the only code that
 * sees the card. It is checked, the charge claimed (its one submission; src/persistence/charges/card-submission-store.ts),
 * sent to the aggregator from here, and dropped: what is kept is the brand, the last four digits, the
 * aggregator's token (sealed) and its answer. Nothing logged here carries the card: errors are logged
 * by their name and the charge id only.
 */

export interface LiveCardCharge {
  chargeId: string;
  amount: number;
  currency: string;
  merchantName: string;
}

export type CardSendResult =
  /** Sent (whatever the aggregator answered: the page shows the charge's state and challenge). */
  | { kind: 'sent' }
  /** The card cannot be sent as typed (nothing was claimed or sent): the customer corrects it. */
  | { kind: 'invalid'; problem: string }
  /** A card was sent for this charge already, or its window closed, or it is no longer waiting. */
  | { kind: 'taken' }
  /** This process cannot send cards (no AGGREGATOR_ENCRYPTION_KEY): nothing was claimed. */
  | { kind: 'unavailable' };

export async function sendLiveCard(deps: ServiceDeps, charge: LiveCardCharge, returnUrl: string, card: CardInput): Promise<CardSendResult> {
  const problem = cardProblem(card, new Date());
  if (problem) return { kind: 'invalid', problem };
  const cards = deps.cardPayments;
  if (!cards) return { kind: 'unavailable' };
  const claim = await claimCardSubmission(deps.orm, charge.chargeId, { brand: cardBrand(card.number), last4: lastFour(card.number) });
  if (claim.kind === 'taken') return { kind: 'taken' };
  let answer: CardAnswerRecord;
  try {
    const said = await cards.chargeCard(
      { referenceId: claim.referenceId, amount: charge.amount, currency: charge.currency, message: `Payment to ${charge.merchantName}`.slice(0, 100), externalId: charge.chargeId, redirectUrl: returnUrl },
      card,
    );
    answer = answerRecord(said);
  } catch (error) {
    // Not sendable (nothing left us): a refusal of our own. Anything else may have reached the aggregator: its status says.
    if (error instanceof RailRequestInvalid) answer = { outcome: 'refused', reason: 'REQUEST_INVALID', failureClass: 'declined' };
    else answer = { outcome: 'no_answer' };
    deps.log.warn({ chargeId: charge.chargeId, error: errorName(error) }, 'live card: the aggregator did not answer the card submission; the charge follows its status');
  }
  await recordCardAnswer(deps.orm, deps.secretBox, charge.chargeId, answer);
  const railAnswer = answer.outcome === 'no_answer' ? null : submitAnswer(charge.chargeId, answer.outcome === 'refused' ? { kind: 'refused', reason: answer.reason ?? 'REFUSED', failureClass: answer.failureClass ?? 'declined' } : { kind: answer.outcome }, true);
  if (railAnswer) await recordRailAnswer(deps.orm.em.fork(), railAnswer);
  await wake(deps, charge.chargeId, CARD_SUBMITTED_SIGNAL);
  deps.log.info({ chargeId: charge.chargeId, outcome: answer.outcome, challenge: answer.challenge?.mode ?? 'none' }, 'live card: sent to the aggregator');
  return { kind: 'sent' };
}

export type OtpSendResult = { kind: 'sent' } | { kind: 'taken' } | { kind: 'invalid' } | { kind: 'unavailable' };

/** The customer's one-time code for the aggregator's challenge: sent once; the aggregator's word on the charge follows. */
export async function sendCardOtp(deps: ServiceDeps, chargeId: string, otp: string): Promise<OtpSendResult> {
  if (!/^[0-9]{4,8}$/.test(otp)) return { kind: 'invalid' };
  const cards = deps.cardPayments;
  if (!cards) return { kind: 'unavailable' };
  const submission = await findCardSubmission(deps.orm, chargeId);
  if (!submission || submission.challenge !== 'otp' || !submission.flwRef || submission.otpSent) return { kind: 'taken' };
  if (!(await markOtpSent(deps.orm, chargeId))) return { kind: 'taken' };
  const [ref] = await deps.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [chargeId]);
  try {
    const said = await cards.validateOtp(ref.reference_id, submission.flwRef, otp);
    deps.log.info({ chargeId, outcome: said.kind }, 'live card: one-time code sent to the aggregator');
  } catch (error) {
    deps.log.warn({ chargeId, error: errorName(error) }, 'live card: the aggregator did not answer the one-time code; the charge follows its status');
  }
  await wake(deps, chargeId, PARTNER_CALLBACK_SIGNAL);
  return { kind: 'sent' };
}

/**
 * The customer is back from the aggregator's 3-D Secure page: the charge's workflow asks the
 * aggregator now. Debounced and capped with the partner callbacks (one wake-up per charge per window,
 * across API processes): reloading the return page costs no history events.
 */
export async function cardReturned(deps: ServiceDeps, chargeId: string): Promise<void> {
  if ((await claimCallbackSignal(deps.orm, chargeId)) !== 'signal') return;
  await wake(deps, chargeId, PARTNER_CALLBACK_SIGNAL);
}

function answerRecord(said: CardChargeAnswer): CardAnswerRecord {
  if (said.kind === 'refused') return { outcome: 'refused', reason: said.reason, failureClass: said.failureClass as FailureClass };
  const challenge = said.challenge?.mode === 'otp' ? { mode: 'otp' as const, ...(said.flwRef ? { flwRef: said.flwRef } : {}) } : said.challenge?.mode === 'redirect' ? { mode: 'redirect' as const, url: said.challenge.url } : undefined;
  return {
    outcome: said.kind,
    ...(said.card?.token ? { token: said.card.token } : {}),
    ...(said.card?.brand ? { brand: said.card.brand } : {}),
    ...(challenge ? { challenge } : {}),
  };
}

/** A wake-up for the charge's workflow; one that cannot be delivered is logged (the workflow finds the submission at expiry, and polls the aggregator). */
async function wake(deps: ServiceDeps, chargeId: string, signal: string): Promise<void> {
  const client = deps.temporal.client;
  try {
    await withinDeadline(client, deps.temporalDeadlineMs, () => client.workflow.getHandle(chargeId).signal(signal));
  } catch (error) {
    deps.log.warn({ chargeId, signal, error: errorName(error) }, 'live card: the charge workflow was not woken (it reads the submission at expiry and polls the aggregator)');
  }
}

/** An error's name and message, never its cause chain (a client's errors never carry the card; this keeps it so). */
function errorName(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
}
