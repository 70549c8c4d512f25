import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { chargeJson, type ChargeRecord } from '../domain/charge';
import { ApiError } from '../domain/errors';
import { railPlan } from '../domain/sandbox-outcome';
import { writeChargeOnce, type CreateAnswer } from '../persistence/charges/charge-create-store';
import { insertCheckoutToken } from '../persistence/charges/checkout-token-store';
import { checkoutUrl, isCheckoutAction } from '../domain/hosted-checkout';
import { checkoutTokenHash, newCheckoutToken } from '../support/checkout-token';
import { applyLiveLimits } from '../persistence/merchants/live-limits-store';
import { recordPaymentParty } from '../persistence/payment-party-store';
import type { IdempotencyScope } from '../persistence/idempotency-store';
import { findCurrency, findMomoNetwork } from '../persistence/reference-store';
import { newId } from '../support/new-id';
import { startChargeWorkflow } from '../temporal/charge-start';
import { markChargeWorkflowsStarted } from '../persistence/charges/charge-workflow-start-store';
import { buildChargeDraft, type ChargeRequest } from './charge-draft';
import { chargeExpiryProblem } from '../domain/charge-lifetime';
import { renderError } from './render-error';
import { startWithin } from './start-within';
import type { Caller, ServiceDeps } from './context';
import { newPaymentRoute } from './payment-route';
import { looksLikeCardNumber } from './card-identifier';
import { CHECKOUT_STATUS } from '../domain/hosted-checkout';

/** Re-exported for the other creates' and tests' imports (src/services/start-within.ts owns it). */
export { DEFAULT_CHARGE_START_WAIT_MS } from './start-within';

/** The web port's default public URL (WEB_PUBLIC_URL), when the deps name none. */
const DEFAULT_WEB_URL = 'http://127.0.0.1:3002';

export interface StoredAnswer {
  status: number;
  body: string;
  replayed: boolean;
}

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${stringify(body)}`).digest('hex');
}

/** Checks the request against the reference lists; nothing is stored when this throws. */
async function checkReferences(deps: ServiceDeps, request: ChargeRequest): Promise<void> {
  const currency = await findCurrency(deps.orm, request.currency);
  if (!currency) throw new ApiError('invalid_request', `Unknown currency "${request.currency}"; see GET /v1/reference/currencies.`, { param: 'currency' });
  if (request.channel !== 'mobile_money') return;
  const network = await findMomoNetwork(deps.orm, request.momo_network_id!);
  if (!network) throw new ApiError('invalid_request', 'Unknown momo_network_id; see GET /v1/reference/momo-networks.', { param: 'momo_network_id' });
  if (network.currency !== request.currency) {
    throw new ApiError('invalid_request', `Network ${network.name} (${network.country}) collects ${network.currency}, not ${request.currency}.`, { param: 'currency' });
  }
}

/**
 * The create answer (SPEC 6.3): the charge in flight, or for the sandbox `indeterminate` outcome 504
 * `partner_timeout` (the charge stays unresolved; its outcome arrives as an event).
 */
function createAnswer(charge: ChargeRecord, sandboxOutcome: string | null, requestId: string, checkoutUrl?: string): CreateAnswer {
  if (railPlan(charge.environment, sandboxOutcome).kind === 'unresolved') {
    return renderError(
      new ApiError('partner_timeout', 'The partner did not answer in time. The charge stays unresolved; its outcome arrives as an event (GET /v1/events).', {
        transaction_id: charge.id,
      }),
      requestId,
    );
  }
  // Hosted checkout: the page's url (with its single-use token) is in this answer only, never stored on the charge.
  if (checkoutUrl && charge.action) return { status: 200, body: chargeJson({ ...charge, action: { ...charge.action, url: checkoutUrl } }) };
  return { status: 200, body: chargeJson(charge) };
}

/**
 * POST /v1/charges: write first, then start (docs/architecture.md, "Create path"). One database
 * transaction claims the Idempotency-Key, stores the answer and writes the charge, its hold and
 * `transaction.created`; then the workflow (id = charge id, input `{ chargeId }`) is started, waiting
 * at most CHARGE_START_WAIT_MS. The charge is durable at commit, so the answer never depends on
 * Temporal or a worker: a start that is slow or fails is finished by the charge-start relay.
 */
export async function createCharge(
  deps: ServiceDeps,
  caller: Caller,
  key: string,
  request: ChargeRequest,
  hash: string,
  requestId: string,
  metadataJson?: string,
): Promise<StoredAnswer> {
  if (caller.environment === 'live' && !caller.merchantVerified) {
    throw new ApiError('identity_verification_required', 'Live charges need a verified merchant identity.');
  }
  await checkReferences(deps, request);
  // Issue 46: a mobile-money charge may fail over (a bank transfer's account and a card's page are their partner's own).
  const { rail, railRoute } = await newPaymentRoute(deps, caller, 'charges', request.channel, request.currency, request.channel === 'mobile_money');
  if (caller.environment === 'live' && request.channel === 'card' && looksLikeCardNumber(request.customer.identifier)) {
    throw new ApiError(
      'invalid_request',
      'A live card charge never takes the card number: the customer types it into the hosted page (action.url). Send an identifier of your customer (an email, a phone number, your customer id) instead; nothing was created.',
      { param: 'customer.identifier' },
    );
  }
  const scope: IdempotencyScope = { merchantId: caller.merchantId, environment: caller.environment, key };
  const draft = buildChargeDraft(caller, newId('charge'), request, new Date(), metadataJson);
  const { sandboxOutcome, ...drafted } = draft;
  // Issue 45: a live bank charge at the aggregator is a bank transfer the customer makes: awaiting
  // their action, on a hosted checkout page that shows the account the aggregator gives.
  const liveBankTransfer = caller.environment === 'live' && request.channel === 'bank' && rail === 'aggregator';
  // A live card charge at the aggregator: the customer types the card into the hosted page (the only
  // thing that sees it) and passes the aggregator's challenge there (docs/checkout.md, "Live cards").
  const liveCard = caller.environment === 'live' && request.channel === 'card' && rail === 'aggregator';
  const liveAction = liveBankTransfer ? { type: 'hosted_checkout' as const } : liveCard ? { type: '3ds_redirect' as const } : undefined;
  const record = { ...drafted, rail, railRoute, ...(liveAction ? { status: CHECKOUT_STATUS, action: liveAction } : {}) };
  // Hosted checkout (docs/checkout.md): a single-use token, stored hashed with the charge's expiry.
  const token = isCheckoutAction(record.action) ? newCheckoutToken() : undefined;
  // A key taken over from before write-first answers its charge as stored (no checkout of its own).
  const urlFor = (charge: ChargeRecord) => (token && charge.id === record.id ? checkoutUrl(deps.webUrl ?? DEFAULT_WEB_URL, token) : undefined);
  const write = await writeChargeOnce(deps.orm, scope, hash, record, (charge) => createAnswer(charge, sandboxOutcome, requestId, urlFor(charge)), {
    // Checked on a new claim only: a retry of the same request answers what the first one stored,
    // however much later it comes (the bounds count from the charge's own creation).
    check: (em, charge) => {
      const expiry = chargeExpiryProblem(charge.createdAt, charge.expiresAt);
      if (expiry) throw new ApiError('expires_at_out_of_range', expiry, { param: 'expires_at' });
      return charge.environment === 'live' ? applyLiveLimits(em, charge.merchantId, 'charge', charge.amount, charge.currency) : Promise.resolve();
    },
    written: async (em, charge) => {
      await recordPaymentParty(em, deps.secretBox, charge.id, request.customer.identifier);
      if (token && charge.id === record.id) await insertCheckoutToken(em, checkoutTokenHash(token), charge.id, charge.expiresAt);
    },
  });
  if (write.kind === 'replay') return { status: write.status, body: write.body, replayed: true };
  if (write.kind === 'in_use') throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  if (write.kind === 'reused') throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
  await startWithin(deps, { kind: 'charge', id: write.charge.id, start: () => startChargeWorkflow(deps.temporal.client, deps.taskQueue, write.charge), markStarted: () => markChargeWorkflowsStarted(deps.orm, [write.charge.id]) });
  return { ...write.answer, replayed: false };
}
