import type { FailureClass } from '../../domain/failure-classes';
import type { Logger } from '../../support/logger';
import { isReferenceId } from '../momo-protocol';
import { RailUnavailable } from '../partner-rail';
import { RailMisconfigured, RailRequestInvalid } from '../rail-errors';
import { toAggregatorAmount } from './amount';
import { cardDigits, cardProblem, type CardInput } from './card-input';
import { encryptCardPayload } from './card-crypto';
import { CARD_PATH, CARD_TYPE, type CardChargePayload, type ValidateChargeBody } from './card-protocol';
import { cardReason, challengeOf, flwRefOf, isBrowserUrl, localSummary, objectOf, summaryOf, type CardChallenge, type CardSummary } from './card-answer';
import type { AggregatorConfig } from './config';
import { errorCodeOf, isDuplicateAnswer } from './errors';
import { AggregatorHttp, type AggregatorAnswer } from './http';
import { MAX_NARRATION_LENGTH, PATH } from './protocol';
import { envelopeOf, type ReadEnvelope } from './status';

export { cardBrand, cardProblem, type CardInput } from './card-input';
export type { CardChallenge, CardSummary } from './card-answer';

export interface CardChargeRequest {
  /** Our reference (a UUID v4): the charge's tx_ref, the same on every retry. */
  referenceId: string;
  /** Minor units. */
  amount: number;
  currency: string;
  /** The narration (cut to 100 characters). */
  message: string;
  /** Our id of the payment (`txn_…`): `meta.external_id`. */
  externalId: string;
  /** Where the aggregator's 3-D Secure page sends the customer back (an http(s) URL; `status` and `tx_ref` are added to its query). */
  redirectUrl: string;
}

export type CardChargeAnswer =
  | { kind: 'accepted' | 'duplicate'; card?: CardSummary; challenge?: CardChallenge; flwRef?: string }
  | { kind: 'refused'; reason: string; failureClass: FailureClass };

export type OtpAnswer = { kind: 'accepted' } | { kind: 'refused'; reason: string; failureClass: FailureClass };

/** A reason of ours: the aggregator asked for a step the engine does not play (Flutterwave's `pin`, `avs_noauth`). */
export const AUTHORIZATION_NOT_SUPPORTED = 'AUTHORIZATION_NOT_SUPPORTED';

const CHARGE_CALL = `POST ${PATH.charges}?type=${CARD_TYPE}`;
const VALIDATE_CALL = `POST ${CARD_PATH.validateCharge}`;
const VERIFY_CALL = `GET ${PATH.verifyCharge}?tx_ref=…`;

/**
 * The aggregator's card charges (docs/aggregator.md, "Cards"), called by the hosted checkout page's
 * server directly, never from a workflow: the card number must never enter a workflow's history.
 *
 * - `chargeCard`: `POST /v3/charges?type=card` with `{client}`, the payload encrypted with
 *   AGGREGATOR_ENCRYPTION_KEY (card-crypto.ts). Accepted (or a duplicate of our tx_ref): the card as
 *   the aggregator kept it, its flw_ref, and the challenge the customer must pass (an OTP, or a 3-D
 *   Secure page to visit). Errors through the one error table (errors.ts), as `submit` reads them.
 * - `validateOtp`: `POST /v3/validate-charge`.
 * - The charge's status is AggregatorRail's `status('collection', referenceId)`, like every charge.
 *
 * SECURITY: the card number and the CVV are in the encrypted body only: never in a URL, a log line, a
 * thrown error, or a reason. An error names the call, the HTTP status and a code (no digits, see
 * cardReason), never the aggregator's body, which a broken aggregator could fill with the card.
 */
export class AggregatorCards {
  private readonly http: AggregatorHttp;
  private readonly logger: Pick<Logger, 'warn'> | undefined;

  constructor(private readonly config: AggregatorConfig, options: { logger?: Pick<Logger, 'warn'> } = {}) {
    this.http = new AggregatorHttp(config);
    this.logger = options.logger;
  }

  async chargeCard(request: CardChargeRequest, card: CardInput): Promise<CardChargeAnswer> {
    checkReference(request.referenceId);
    if (typeof request.redirectUrl !== 'string' || !isBrowserUrl(request.redirectUrl)) throw new RailRequestInvalid('redirectUrl must be an http(s) URL without credentials, at most 2048 characters');
    const key = this.config.encryptionKey;
    if (!key) throw new RailMisconfigured('card charges need AGGREGATOR_ENCRYPTION_KEY (the account\u2019s 24-character encryption key): none is configured');
    const problem = cardProblem(card, new Date());
    if (problem) throw new RailRequestInvalid(problem);
    const payload: CardChargePayload = {
      card_number: cardDigits(card.number),
      cvv: card.cvv,
      expiry_month: String(card.expiryMonth).padStart(2, '0'),
      expiry_year: String(card.expiryYear % 100).padStart(2, '0'),
      currency: request.currency,
      amount: toAggregatorAmount(request.amount, request.currency),
      tx_ref: request.referenceId,
      redirect_url: request.redirectUrl,
      narration: request.message.slice(0, MAX_NARRATION_LENGTH),
      meta: { external_id: request.externalId },
    };
    const answer = await this.http.post(PATH.charges, { client: encryptCardPayload(key, payload) }, { type: CARD_TYPE });
    return this.readCharge(request.referenceId, card, answer);
  }

  async validateOtp(referenceId: string, flwRef: string, otp: string): Promise<OtpAnswer> {
    checkReference(referenceId);
    if (typeof flwRef !== 'string' || !/^[A-Za-z0-9_.:-]{1,100}$/.test(flwRef)) throw new RailRequestInvalid("flwRef must be the charge's flw_ref, as chargeCard answered it");
    if (typeof otp !== 'string' || !/^[0-9]{4,8}$/.test(otp.trim())) throw new RailRequestInvalid('The code must be 4 to 8 digits.');
    const body: ValidateChargeBody = { otp: otp.trim(), flw_ref: flwRef, type: CARD_TYPE };
    const answer = await this.http.post(CARD_PATH.validateCharge, body);
    const envelope = envelopeOf(answer.json);
    if (answer.status >= 200 && answer.status < 300) {
      if (envelope?.status !== 'success') throw new RailUnavailable(`${VALIDATE_CALL}: HTTP ${answer.status} without the aggregator's success answer`, answer.status);
      const data = objectOf(envelope.data);
      if (!data) throw new RailUnavailable(`${VALIDATE_CALL}: a success without the charge`, answer.status);
      if (typeof data.tx_ref === 'string' && data.tx_ref.toLowerCase() !== referenceId.toLowerCase()) throw new RailUnavailable(`${VALIDATE_CALL}: the aggregator answered with another tx_ref's charge (is flwRef this charge's?)`, answer.status);
      return this.otpOutcome(data, VALIDATE_CALL, answer.status);
    }
    this.throwIfNoAnswer(VALIDATE_CALL, answer, envelope);
    const error = cardReason(envelope!.code, envelope!.message);
    if (errorCodeOf(envelope!.code, envelope!.message) === 'TRANSACTION_NOT_FOUND') return { kind: 'refused', reason: 'TRANSACTION_NOT_FOUND', failureClass: error.failureClass };
    switch (error.handling) {
      case 'misconfigured':
        throw misconfigured(VALIDATE_CALL, answer.status, error.reason);
      case 'retry':
        throw new RailUnavailable(`${VALIDATE_CALL}: HTTP ${answer.status} ${error.reason}: the aggregator asks for a retry`, answer.status);
      case 'refused':
        return { kind: 'refused', reason: error.reason, failureClass: error.failureClass };
      case 'ask_status': {
        const charge = await this.verify(referenceId);
        if (charge === 'unknown') return { kind: 'refused', reason: error.reason, failureClass: error.failureClass };
        return this.otpOutcome(charge, VERIFY_CALL, 200);
      }
    }
  }

  /** Closes the connections to the aggregator (calls in flight finish first). */
  close(): Promise<void> {
    return this.http.close();
  }

  private async readCharge(referenceId: string, card: CardInput, answer: AggregatorAnswer): Promise<CardChargeAnswer> {
    const envelope = envelopeOf(answer.json);
    if (answer.status >= 200 && answer.status < 300) {
      if (envelope?.status !== 'success') throw new RailUnavailable(`${CHARGE_CALL}: HTTP ${answer.status} without the aggregator's success answer`, answer.status);
      const data = objectOf(envelope.data);
      if (!data) throw new RailUnavailable(`${CHARGE_CALL}: a success without the charge`, answer.status);
      if (typeof data.tx_ref === 'string' && data.tx_ref.toLowerCase() !== referenceId.toLowerCase()) throw new RailUnavailable(`${CHARGE_CALL}: the aggregator answered for another reference`, answer.status);
      return this.kept('accepted', referenceId, envelope.meta, data, card);
    }
    this.throwIfNoAnswer(CHARGE_CALL, answer, envelope);
    if (isDuplicateAnswer(envelope!.code, envelope!.message)) {
      const kept = objectOf(envelope!.data);
      if (kept && (typeof kept.tx_ref !== 'string' || kept.tx_ref.toLowerCase() === referenceId.toLowerCase())) return this.kept('duplicate', referenceId, envelope!.meta, kept, card);
      // A duplicate without the kept charge: verify says what it is.
      const charge = await this.verify(referenceId);
      return charge === 'unknown' ? { kind: 'duplicate' } : this.kept('duplicate', referenceId, undefined, charge, card);
    }
    const error = cardReason(envelope!.code, envelope!.message);
    switch (error.handling) {
      case 'misconfigured':
        throw misconfigured(CHARGE_CALL, answer.status, error.reason);
      case 'retry':
        throw new RailUnavailable(`${CHARGE_CALL}: HTTP ${answer.status} ${error.reason}: the aggregator asks for a retry`, answer.status);
      case 'refused':
        return { kind: 'refused', reason: error.reason, failureClass: error.failureClass };
      case 'ask_status': {
        // Did the aggregator keep our tx_ref despite the error? Verify says; only `unknown` makes the refusal final.
        const charge = await this.verify(referenceId);
        if (charge === 'unknown') return { kind: 'refused', reason: error.reason, failureClass: error.failureClass };
        this.logger?.warn({ referenceId, status: answer.status, reason: error.reason }, 'aggregator refused a card charge of a tx_ref it keeps: read as a duplicate');
        return this.kept('duplicate', referenceId, undefined, charge, card);
      }
    }
  }

  /** A charge the aggregator keeps, as the answer: its card, its flw_ref and, while pending, its challenge. */
  private kept(kind: 'accepted' | 'duplicate', referenceId: string, envelopeMeta: unknown, data: Record<string, unknown>, card: CardInput): CardChargeAnswer {
    const summary = summaryOf(data.card) ?? (kind === 'accepted' ? localSummary(card) : undefined);
    const flwRef = flwRefOf(data);
    const pending = typeof data.status === 'string' && data.status.trim().toLowerCase() === 'pending';
    const challenge = pending ? challengeOf(envelopeMeta, data, card) : null;
    if (challenge === 'unsupported') {
      // The charge is kept, pending, but asks for a step we cannot show (a PIN, an address): it will expire there.
      this.logger?.warn({ referenceId, kind }, 'aggregator asked for a card authorization the engine does not play (only otp and redirect): refused');
      return { kind: 'refused', reason: AUTHORIZATION_NOT_SUPPORTED, failureClass: 'declined' };
    }
    if (challenge?.mode === 'otp' && !flwRef) throw new RailUnavailable(`${CHARGE_CALL}: an OTP challenge without the charge's flw_ref`, 200);
    return { kind, ...(summary ? { card: summary } : {}), ...(challenge ? { challenge } : {}), ...(flwRef ? { flwRef } : {}) };
  }

  /** An OTP's outcome from the charge as it now is: pending or successful accepted, failed refused with its reason. */
  private otpOutcome(charge: Record<string, unknown>, what: string, status: number): OtpAnswer {
    const word = typeof charge.status === 'string' ? charge.status.trim().toLowerCase() : '';
    if (word === 'successful') return { kind: 'accepted' };
    if (word === 'failed' || word === 'cancelled') {
      const failure = cardReason(charge.failure_code, charge.processor_response);
      return { kind: 'refused', reason: failure.reason, failureClass: failure.failureClass };
    }
    if (word === 'pending' && what === VALIDATE_CALL) return { kind: 'accepted' };
    // Pending after an error we cannot read: whether the OTP was taken is unknown; ask again (a second validate answers the charge as it is).
    if (word === 'pending') throw new RailUnavailable(`${what}: the charge is still pending after an error on its OTP: send the OTP again`, status);
    throw new RailUnavailable(`${what}: a charge whose status we cannot read`, status);
  }

  /** The charge of our tx_ref (`verify_by_reference`), or `unknown`. No body in any error: the charge could carry anything. */
  private async verify(referenceId: string): Promise<Record<string, unknown> | 'unknown'> {
    const answer = await this.http.get(PATH.verifyCharge, { tx_ref: referenceId });
    const envelope = envelopeOf(answer.json);
    if (answer.status !== 200 || envelope?.status !== 'success') {
      if ((answer.status === 404 || answer.status === 400) && envelope?.status === 'error' && errorCodeOf(envelope.code, envelope.message) === 'TRANSACTION_NOT_FOUND') return 'unknown';
      this.throwIfNoAnswer(VERIFY_CALL, answer, envelope);
      throw new RailUnavailable(`${VERIFY_CALL}: HTTP ${answer.status} ${cardReason(envelope?.code, envelope?.message).reason}`, answer.status);
    }
    const data = objectOf(envelope.data);
    if (!data) throw new RailUnavailable(`${VERIFY_CALL}: a success without a charge`, 200);
    if (typeof data.tx_ref !== 'string' || data.tx_ref.toLowerCase() !== referenceId.toLowerCase()) throw new RailUnavailable(`${VERIFY_CALL}: the aggregator answered with another tx_ref's charge`, 200);
    return data;
  }

  /**
   * Throws for an answer that is no refusal: a 401 or an error naming our configuration
   * (RailMisconfigured); a 5xx, a 429, or a body that is not the aggregator's `{status: 'error'}`
   * (RailUnavailable). The message names the HTTP status and the code only, never the body.
   */
  private throwIfNoAnswer(what: string, answer: AggregatorAnswer, envelope: ReadEnvelope | undefined): void {
    const error = envelope?.status === 'error' ? cardReason(envelope.code, envelope.message) : undefined;
    if (answer.status === 401 || (error?.handling === 'misconfigured' && answer.status >= 400 && answer.status < 500)) throw misconfigured(what, answer.status, error?.reason ?? 'no error body');
    if (answer.status >= 500 || answer.status === 429 || answer.status < 400 || !error) {
      throw new RailUnavailable(`${what}: HTTP ${answer.status} ${error ? error.reason : 'without an answer of the aggregator (its body is never repeated)'}`, answer.status);
    }
  }
}

function checkReference(value: string): void {
  if (!isReferenceId(value)) throw new RailRequestInvalid('referenceId must be a UUID (the charge\u2019s tx_ref)');
}

function misconfigured(what: string, status: number, reason: string): RailMisconfigured {
  const hint = reason === 'ENCRYPTION_FAILED' ? 'check AGGREGATOR_ENCRYPTION_KEY (the account\u2019s encryption key)' : 'check AGGREGATOR_SECRET_KEY, AGGREGATOR_ENCRYPTION_KEY, AGGREGATOR_BASE_URL and the account\u2019s settings (cards enabled, IP whitelist)';
  return new RailMisconfigured(`${what}: the aggregator refused our configuration (HTTP ${status} ${reason}): ${hint}`, status);
}
