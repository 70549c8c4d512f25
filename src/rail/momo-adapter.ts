import type { Logger } from '../support/logger';
import { RailUnavailable, productOfResource, type PartnerRail, type RailProduct, type RailRequest, type RailResource, type RailStatus, type RailSubmitResult } from './partner-rail';
import type { PartnerConfig } from './partner-config';
import { HEADER, PARTY_FIELD, TRANSACTION_PATH, isReferenceId, type MomoSubmission } from './momo-protocol';
import { DUPLICATE_REFERENCE_REASON, MISCONFIGURATION_REASONS, failureClassOf, momoRetryElsewhere, reasonCodeOf } from './momo-reasons';
import { formatMomoAmount } from './momo-amount';
import { callbackUrl } from './momo-callback';
import { parseMomoStatus } from './momo-status';
import { PartnerHttp, type PartnerAnswer } from './momo-http';
import { MomoTokens } from './momo-token';
import { readNotFound } from './momo-not-found';
import { RailMisconfigured, RailRequestInvalid } from './rail-errors';

/** MoMo's longest payerMessage / payeeNote. */
export const MAX_MESSAGE_LENGTH = 160;

/** The 4xx answers to a submission that are the partner's refusal of the payment, when they name a reason. */
const REFUSAL_STATUSES = new Set([400, 403, 404, 422]);

export interface MomoRailOptions {
  /** Warnings (an unexpected answer, a refused token) and nothing secret. */
  logger?: Pick<Logger, 'warn'>;
  /** Connections to the partner at most (default 16). */
  connections?: number;
}

/**
 * The live rail: the mobile-money partner, through the MoMo-modelled protocol (docs/partner-rail.md).
 *
 * - `submit`: `POST /collection/v1_0/requesttopay`, `POST /disbursement/v1_0/transfer` or (issue 45)
 *   `POST /disbursement/v1_0/refund` with our `X-Reference-Id`. 202: accepted. 409: duplicate (the
 *   partner has the reference: a retry). A refund names the request-to-pay it refunds
 *   (`referenceIdToRefund`) and no party, and goes with the disbursement product's token and
 *   subscription key (productOfResource).
 *   400/403/404/422 naming a reason: refused, the reason mapped to a failure_class
 *   (src/rail/momo-reasons.ts).
 * - `status`: `GET …/{referenceId}`. PENDING, SUCCESSFUL, FAILED; a 404 naming RESOURCE_NOT_FOUND:
 *   unknown; any other 404 (a proxy's page, a wrong base path, no body): RailUnavailable, its body's
 *   first bytes in the message (src/rail/momo-not-found.ts).
 * - A 5xx, a 429, a timeout (PARTNER_TIMEOUT_MS), a lost connection or an answer we cannot read:
 *   RailUnavailable (retry with the same reference; a submission may or may not have arrived, and
 *   the retry or a status tells which). A 401 with a fresh token, a refused token request or a
 *   reason that names our configuration: RailMisconfigured (not retryable). A request we cannot
 *   send (currency, reference): RailRequestInvalid (not retryable).
 */
export class MomoPartnerRail implements PartnerRail {
  private readonly http: PartnerHttp;
  private readonly tokens: MomoTokens;
  private readonly logger: Pick<Logger, 'warn'> | undefined;

  constructor(private readonly config: PartnerConfig, options: MomoRailOptions = {}) {
    this.http = new PartnerHttp(config.baseUrl, config.timeoutMs, options.connections);
    this.tokens = new MomoTokens(this.http, config.credentials);
    this.logger = options.logger;
  }

  async submit(resource: RailResource, request: RailRequest): Promise<RailSubmitResult> {
    const { referenceId } = request;
    if (!isReferenceId(referenceId)) throw new RailRequestInvalid(`referenceId must be a UUID, got "${referenceId}"`);
    const body = submissionBody(resource, request);
    const path = TRANSACTION_PATH[resource];
    const answer = await this.authorized(productOfResource(resource), 'POST', path, {
      'content-type': 'application/json',
      [HEADER.referenceId]: referenceId,
      [HEADER.callbackUrl]: callbackUrl(this.config, resource, referenceId),
    }, JSON.stringify(body));

    if (answer.status === 202) return { kind: 'accepted' };
    const reason = reasonCodeOf(answer.json);
    if (answer.status === 409) {
      if (reason !== DUPLICATE_REFERENCE_REASON) this.logger?.warn({ product: resource, referenceId, status: 409, reason }, 'partner answered 409 without RESOURCE_ALREADY_EXIST: read as a duplicate reference');
      return { kind: 'duplicate' };
    }
    if (REFUSAL_STATUSES.has(answer.status) && reason) {
      if (MISCONFIGURATION_REASONS.has(reason)) {
        throw new RailMisconfigured(`POST ${path}: the partner refused our configuration (HTTP ${answer.status} ${reason}): check PARTNER_TARGET_ENVIRONMENT, PARTNER_BASE_URL and PARTNER_CALLBACK_BASE_URL`, answer.status);
      }
      return { kind: 'refused', reason, failureClass: failureClassOf(reason), ...(momoRetryElsewhere(reason) ? { retryElsewhere: true } : {}) };
    }
    throw new RailUnavailable(`POST ${path}: HTTP ${answer.status}${reason ? ` ${reason}` : ''}`, answer.status);
  }

  async status(resource: RailResource, referenceId: string): Promise<RailStatus> {
    if (!isReferenceId(referenceId)) throw new RailRequestInvalid(`referenceId must be a UUID, got "${referenceId}"`);
    const path = `${TRANSACTION_PATH[resource]}/${referenceId}`;
    const answer = await this.authorized(productOfResource(resource), 'GET', path, {});
    if (answer.status === 404) {
      const notFound = readNotFound(answer);
      if ('status' in notFound) return notFound;
      this.logger?.warn({ product: resource, referenceId, status: 404 }, `partner status: ${notFound.noAnswer}`);
      throw new RailUnavailable(`GET ${path}: ${notFound.noAnswer}`, 404);
    }
    if (answer.status === 200) {
      const status = parseMomoStatus(answer.json);
      if (status) return status;
      throw new RailUnavailable(`GET ${path}: an answer that is not a transaction status`, 200);
    }
    const reason = reasonCodeOf(answer.json);
    if (reason && MISCONFIGURATION_REASONS.has(reason) && answer.status >= 400 && answer.status < 500) {
      throw new RailMisconfigured(`GET ${path}: the partner refused our configuration (HTTP ${answer.status} ${reason}): check PARTNER_TARGET_ENVIRONMENT and PARTNER_BASE_URL`, answer.status);
    }
    throw new RailUnavailable(`GET ${path}: HTTP ${answer.status}${reason ? ` ${reason}` : ''}`, answer.status);
  }

  /** Closes the connections to the partner (calls in flight finish first). */
  close(): Promise<void> {
    return this.http.close();
  }

  /**
   * One call with the product's bearer token, the subscription key and the target environment. A 401
   * drops the token and tries once more with a new one (the partner may have revoked it early); a
   * second 401 is our configuration's fault.
   */
  private async authorized(product: RailProduct, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<PartnerAnswer> {
    for (let attempt = 1; ; attempt++) {
      const token = await this.tokens.get(product);
      const answer = await this.http.send(method, path, {
        ...headers,
        authorization: `Bearer ${token}`,
        [HEADER.subscriptionKey]: this.config.credentials[product].subscriptionKey,
        [HEADER.targetEnvironment]: this.config.targetEnvironment,
      }, body);
      if (answer.status !== 401) return answer;
      this.tokens.invalidate(product, token);
      if (attempt >= 2) {
        throw new RailMisconfigured(`${method} ${path}: the partner refused a fresh ${product} token (HTTP 401): check PARTNER_SUBSCRIPTION_KEY and PARTNER_TARGET_ENVIRONMENT`, 401);
      }
      this.logger?.warn({ product, method, path }, 'partner refused our access token (401): asking for a new one');
    }
  }
}

/**
 * The body of a submission: a request-to-pay names its `payer`, a transfer its `payee`, a refund
 * (issue 45) the request-to-pay it refunds (`referenceIdToRefund`, a UUID) and no party (the money
 * goes back to that request-to-pay's payer). A refund without a valid `referenceIdToRefund`, or a
 * `referenceIdToRefund` on anything but a refund (a refund sent as a transfer would pay the party
 * outside the partner's refund books), cannot be sent: RailRequestInvalid; so is any request whose
 * party is a CARD (the aggregator's alone).
 */
function submissionBody(resource: RailResource, request: RailRequest): MomoSubmission {
  // A card is the aggregator's alone (issue 45): MoMo neither charges nor refunds one.
  if (request.party.partyIdType === 'CARD') throw new RailRequestInvalid('the mobile-money partner takes no CARD party: a card payment and its refunds go through the aggregator');
  const common = {
    amount: formatMomoAmount(request.amount, request.currency),
    currency: request.currency,
    externalId: request.externalId,
  };
  const messages = { payerMessage: request.message.slice(0, MAX_MESSAGE_LENGTH), payeeNote: request.message.slice(0, MAX_MESSAGE_LENGTH) };
  if (resource === 'refund') {
    const original = request.referenceIdToRefund;
    if (original === undefined) throw new RailRequestInvalid('a refund needs referenceIdToRefund: the reference of the request-to-pay it refunds');
    if (!isReferenceId(original)) throw new RailRequestInvalid(`referenceIdToRefund must be a UUID, got "${original}"`);
    return { ...common, referenceIdToRefund: original, ...messages };
  }
  if (request.referenceIdToRefund !== undefined) throw new RailRequestInvalid(`referenceIdToRefund belongs to a refund only, not to a ${resource === 'collection' ? 'request-to-pay' : 'transfer'}`);
  const product: RailProduct = resource;
  return { ...common, [PARTY_FIELD[product]]: { partyIdType: request.party.partyIdType, partyId: request.party.partyId }, ...messages };
}
