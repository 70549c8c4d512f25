import type { Logger } from '../../support/logger';
import { safeExcerpt } from '../../domain/response-excerpt';
import { RailUnavailable, type PartnerRail, type PaymentInstructions, type RailRequest, type RailResource, type RailStatus, type RailSubmitResult } from '../partner-rail';
import { RailMisconfigured, RailRequestInvalid } from '../rail-errors';
import { isReferenceId } from '../momo-protocol';
import type { AggregatorConfig } from './config';
import { AggregatorHttp, type AggregatorAnswer } from './http';
import { toAggregatorAmount } from './amount';
import { chargeTarget, transferTarget } from './party';
import { BANK_TRANSFER_TYPE, MAX_BANK_TRANSFER_EXPIRES_S, MAX_NARRATION_LENGTH, PATH, STATUS_QUERY, referenceOf, type ChargeBody, type RefundBody, type TransferBody } from './protocol';
import { AGGREGATOR_ERRORS, classifyError, errorCodeOf, isDuplicateAnswer } from './errors';
import { envelopeOf, parseAggregatorStatus, type ReadEnvelope } from './status';
import { chargeInstructions } from './instructions';

/** How much of an unreadable answer goes into the error (and so into the activity's failure and the log). */
export const ANSWER_EXCERPT_BYTES = 120;

export interface AggregatorRailOptions {
  /** Warnings (an answer read as a duplicate after asking, instructions that cannot be read) and nothing secret. */
  logger?: Pick<Logger, 'warn'>;
  /** Connections to the aggregator at most (default 16). */
  connections?: number;
}

/**
 * The live rail through the aggregator, a protocol modelled on Flutterwave's v3 API
 * (docs/aggregator.md; src/rail/aggregator/protocol.ts).
 *
 * - `submit`: `POST /v3/charges?type=…` (a collection: mobile money by the currency, `bank_transfer`
 *   for a BANK_ACCOUNT payer, accepted with the account to pay into as `instructions`),
 *   `POST /v3/transfers` (a disbursement to a bank account or a wallet) or, for a refund,
 *   `GET /v3/transactions/verify_by_reference` of the charge it refunds (`referenceIdToRefund`, for
 *   the aggregator's id of it) then `POST /v3/transactions/{id}/refund`. Our reference is the
 *   charge's `tx_ref`, the transfer's and the refund's `reference`. 2xx `success`: accepted. A
 *   repeated reference (409 DUPLICATE_REFERENCE): duplicate. Any other error answer is read through
 *   the error table (src/rail/aggregator/errors.ts): refused and final, retried (RailUnavailable),
 *   checked against the status first (a reference the aggregator knows is a duplicate), or our
 *   configuration (RailMisconfigured).
 * - `status`: by our reference alone, so a crash between submitting and recording the aggregator's
 *   id loses nothing: `GET /v3/transactions/verify_by_reference?tx_ref=` (a 400/404 naming
 *   TRANSACTION_NOT_FOUND: unknown; any other 404: RailUnavailable), `GET /v3/transfers?reference=`
 *   and `GET /v3/refunds?reference=` (an empty list: unknown).
 * - A 5xx, a 429, a timeout (AGGREGATOR_TIMEOUT_MS), a lost connection or an answer we cannot read:
 *   RailUnavailable, retry with the same reference. A 401: RailMisconfigured. A request we cannot
 *   send (currency, party, reference): RailRequestInvalid.
 */
export class AggregatorRail implements PartnerRail {
  private readonly http: AggregatorHttp;
  private readonly logger: Pick<Logger, 'warn'> | undefined;

  constructor(config: AggregatorConfig, options: AggregatorRailOptions = {}) {
    this.http = new AggregatorHttp(config, options.connections);
    this.logger = options.logger;
  }

  async submit(resource: RailResource, request: RailRequest): Promise<RailSubmitResult> {
    checkReference(request.referenceId, 'referenceId');
    if (resource !== 'refund' && request.referenceIdToRefund !== undefined) {
      throw new RailRequestInvalid(`referenceIdToRefund belongs to a refund only, not to a ${resource === 'collection' ? 'charge' : 'transfer'}`);
    }
    const amount = toAggregatorAmount(request.amount, request.currency);
    const narration = request.message.slice(0, MAX_NARRATION_LENGTH);
    const meta = { external_id: request.externalId };

    if (resource === 'collection') {
      const { type, fields } = chargeTarget(request.party, request.currency);
      const expires = type === BANK_TRANSFER_TYPE ? accountOpenSeconds(request.expiresAt) : undefined;
      const body: ChargeBody = { tx_ref: request.referenceId, amount, currency: request.currency, narration, ...fields, ...(expires === undefined ? {} : { expires }), meta };
      const answer = await this.http.post(PATH.charges, body, { type });
      return this.readSubmission(resource, request, `POST ${PATH.charges}?type=${type}`, answer);
    }
    if (resource === 'disbursement') {
      const body: TransferBody = { ...transferTarget(request.party, request.currency), amount, currency: request.currency, narration, reference: request.referenceId, meta };
      const answer = await this.http.post(PATH.transfers, body);
      return this.readSubmission(resource, request, `POST ${PATH.transfers}`, answer);
    }

    const original = request.referenceIdToRefund;
    if (original === undefined) throw new RailRequestInvalid('a refund needs referenceIdToRefund: the reference (tx_ref) of the charge it refunds');
    checkReference(original, 'referenceIdToRefund');
    const charge = await this.verifyCharge(original);
    if (charge === 'unknown') {
      // Nothing to refund: the aggregator has no charge of that tx_ref, so it can hold no refund of it either.
      return { kind: 'refused', reason: 'TRANSACTION_NOT_FOUND', failureClass: AGGREGATOR_ERRORS.TRANSACTION_NOT_FOUND.failureClass };
    }
    const chargeId = chargeIdOf(charge);
    const body: RefundBody = { amount, currency: request.currency, reference: request.referenceId, comments: narration, meta };
    const path = PATH.refund(chargeId);
    const answer = await this.http.post(path, body);
    return this.readSubmission(resource, request, `POST ${path}`, answer);
  }

  async status(resource: RailResource, referenceId: string): Promise<RailStatus> {
    checkReference(referenceId, 'referenceId');
    if (resource === 'collection') {
      const charge = await this.verifyCharge(referenceId);
      if (charge === 'unknown') return { status: 'unknown' };
      const status = parseAggregatorStatus('collection', charge);
      if (!status) throw new RailUnavailable(`GET ${PATH.verifyCharge}: a charge whose status we cannot read`, 200);
      return status;
    }
    const path = resource === 'disbursement' ? PATH.transfers : PATH.refunds;
    const what = `GET ${path}?${STATUS_QUERY[resource]}=…`;
    const answer = await this.http.get(path, { [STATUS_QUERY[resource]]: referenceId });
    const envelope = envelopeOf(answer.json);
    if (answer.status !== 200 || envelope?.status !== 'success') {
      if (isNotFound(answer, envelope)) return { status: 'unknown' };
      throw this.noAnswer(what, answer, envelope);
    }
    if (!Array.isArray(envelope.data)) throw new RailUnavailable(`${what}: a success without a list`, 200);
    const ours = envelope.data.filter((item) => sameReference(referenceOf(resource, item), referenceId));
    if (ours.length === 0) {
      if (envelope.data.length === 0) return { status: 'unknown' };
      // A list that ignored our filter: not finding ours in one page of others says nothing.
      throw new RailUnavailable(`${what}: the aggregator answered ${envelope.data.length} item(s), none of our reference (the list was not filtered by reference)`, 200);
    }
    if (ours.length > 1) throw new RailUnavailable(`${what}: the aggregator lists our reference ${ours.length} times`, 200);
    const status = parseAggregatorStatus(resource, ours[0]);
    if (!status) throw new RailUnavailable(`${what}: an item whose status we cannot read`, 200);
    return status;
  }

  /** Closes the connections to the aggregator (calls in flight finish first). */
  close(): Promise<void> {
    return this.http.close();
  }

  /** The charge of a tx_ref (`verify_by_reference`), or `unknown` when the aggregator says it has none. */
  private async verifyCharge(txRef: string): Promise<Record<string, unknown> | 'unknown'> {
    const what = `GET ${PATH.verifyCharge}?tx_ref=…`;
    const answer = await this.http.get(PATH.verifyCharge, { tx_ref: txRef });
    const envelope = envelopeOf(answer.json);
    if (answer.status !== 200 || envelope?.status !== 'success') {
      if (isNotFound(answer, envelope)) return 'unknown';
      throw this.noAnswer(what, answer, envelope);
    }
    const data = envelope.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new RailUnavailable(`${what}: a success without a charge`, 200);
    if (!sameReference(referenceOf('collection', data), txRef)) throw new RailUnavailable(`${what}: the aggregator answered with another tx_ref's charge`, 200);
    return data as Record<string, unknown>;
  }

  /** A submission's answer as a RailSubmitResult, through the error table (errors.ts); throws what cannot be an answer. */
  private async readSubmission(resource: RailResource, request: RailRequest, what: string, answer: AggregatorAnswer): Promise<RailSubmitResult> {
    const envelope = envelopeOf(answer.json);
    if (answer.status >= 200 && answer.status < 300) {
      if (envelope?.status !== 'success') throw new RailUnavailable(`${what}: HTTP ${answer.status} without the aggregator's success answer`, answer.status);
      const kept = referenceOf(resource, envelope.data);
      if (kept !== undefined && !sameReference(kept, request.referenceId)) throw new RailUnavailable(`${what}: the aggregator answered for another reference`, answer.status);
      return this.withInstructions('accepted', resource, request, envelope);
    }
    if (answer.status === 401) throw misconfigured(what, answer.status, envelope);
    if (answer.status >= 500 || answer.status === 429 || envelope?.status !== 'error') throw this.noAnswer(what, answer, envelope);
    if (isDuplicateAnswer(envelope.code, envelope.message)) return this.withInstructions('duplicate', resource, request, envelope);
    const error = classifyError(envelope.code, envelope.message);
    switch (error.handling) {
      case 'misconfigured':
        throw misconfigured(what, answer.status, envelope);
      case 'retry':
        throw new RailUnavailable(`${what}: HTTP ${answer.status} ${error.reason}: the aggregator asks for a retry`, answer.status);
      case 'refused':
        return { kind: 'refused', reason: error.reason, failureClass: error.failureClass, ...(error.elsewhere ? { retryElsewhere: true } : {}) };
      case 'ask_status': {
        // Did the aggregator keep the reference despite the error? Its status says; only `unknown` makes the refusal final.
        const now = await this.status(resource, request.referenceId);
        if (now.status === 'unknown') return { kind: 'refused', reason: error.reason, failureClass: error.failureClass };
        this.logger?.warn({ product: resource, referenceId: request.referenceId, status: answer.status, reason: error.reason }, 'aggregator refused a submission of a reference it keeps: read as a duplicate');
        return now.status === 'pending' && now.instructions ? { kind: 'duplicate', instructions: now.instructions } : { kind: 'duplicate' };
      }
    }
  }

  private withInstructions(kind: 'accepted' | 'duplicate', resource: RailResource, request: RailRequest, envelope: ReadEnvelope): RailSubmitResult {
    if (resource !== 'collection' || request.party.partyIdType !== 'BANK_ACCOUNT') return { kind };
    const instructions: PaymentInstructions | undefined = chargeInstructions(envelope, request.currency);
    if (!instructions) {
      this.logger?.warn({ product: resource, referenceId: request.referenceId, kind }, 'aggregator answered a bank transfer without instructions we can read: the status will carry them');
      return { kind };
    }
    return { kind, instructions };
  }

  /** An answer that is no answer: RailUnavailable naming its status and what it said, or RailMisconfigured for one that names our configuration. */
  private noAnswer(what: string, answer: AggregatorAnswer, envelope: ReadEnvelope | undefined): Error {
    if (answer.status === 401) return misconfigured(what, answer.status, envelope);
    if (envelope?.status === 'error' && answer.status >= 400 && answer.status < 500 && classifyError(envelope.code, envelope.message).handling === 'misconfigured') return misconfigured(what, answer.status, envelope);
    const said = envelope?.status === 'error' ? classifyError(envelope.code, envelope.message).reason : `body starts "${safeExcerpt(maskLongDigits(answer.text.trim().replace(/\s+/g, ' ')), ANSWER_EXCERPT_BYTES)}"`;
    if (answer.status === 404) this.logger?.warn({ what, status: 404 }, 'aggregator answered 404 without saying it does not know the reference: read as no answer');
    return new RailUnavailable(`${what}: HTTP ${answer.status} ${said}`, answer.status);
  }
}

/** Twelve digits or more (spaces or dashes between them allowed), as a card number: never repeated in an excerpt, whatever the aggregator echoed. */
function maskLongDigits(text: string): string {
  return text.replace(/[0-9](?:[\s-]?[0-9]){11,}/g, '[digits]');
}

/** A bank transfer's `expires`: the seconds until the charge's own expiry (at least 1, at most the aggregator's 5 days); none without one. */
export function accountOpenSeconds(expiresAt: string | undefined, nowMs = Date.now()): number | undefined {
  if (expiresAt === undefined) return undefined;
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) throw new RailRequestInvalid(`expiresAt must be an ISO instant, got "${expiresAt}"`);
  return Math.min(MAX_BANK_TRANSFER_EXPIRES_S, Math.max(1, Math.ceil((at - nowMs) / 1000)));
}

function checkReference(value: string, name: string): void {
  if (!isReferenceId(value)) throw new RailRequestInvalid(`${name} must be a UUID, got "${value}"`);
}

function sameReference(a: string | undefined, b: string): boolean {
  return a !== undefined && a.toLowerCase() === b.toLowerCase();
}

/** The aggregator's "no such transaction": a 400 or 404 naming TRANSACTION_NOT_FOUND (by code or Flutterwave's message). Any other 404 is no answer. */
function isNotFound(answer: AggregatorAnswer, envelope: ReadEnvelope | undefined): boolean {
  return (answer.status === 404 || answer.status === 400) && envelope?.status === 'error' && errorCodeOf(envelope.code, envelope.message) === 'TRANSACTION_NOT_FOUND';
}

function misconfigured(what: string, status: number, envelope: ReadEnvelope | undefined): RailMisconfigured {
  const reason = envelope ? classifyError(envelope.code, envelope.message).reason : 'no error body';
  return new RailMisconfigured(`${what}: the aggregator refused our configuration (HTTP ${status} ${reason}): check AGGREGATOR_SECRET_KEY, AGGREGATOR_BASE_URL and the account's API settings (IP whitelist, transfers enabled)`, status);
}

/** The aggregator's id of a charge (`data.id`): the refund path names it. */
function chargeIdOf(charge: Record<string, unknown>): number {
  const id = typeof charge.id === 'string' && /^[0-9]{1,15}$/.test(charge.id) ? Number(charge.id) : charge.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) throw new RailUnavailable(`GET ${PATH.verifyCharge}: a charge without an id we can refund`, 200);
  return id;
}
