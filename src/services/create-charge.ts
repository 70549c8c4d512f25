import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { chargeJson, type ChargeRecord } from '../domain/charge';
import { ApiError } from '../domain/errors';
import { findCharge } from '../persistence/charge-store';
import { claimIdempotencyKey, completeIdempotencyKey, unlockIdempotencyKey, type IdempotencyScope } from '../persistence/idempotency-store';
import { findCurrency, findMomoNetwork } from '../persistence/reference-store';
import { newId } from '../support/new-id';
import { ACCEPT_UPDATE_ID, acceptChargeUpdate, type ChargeAcceptance } from '../../workflows/messages';
import { railPlan } from '../domain/sandbox-outcome';
import { chargeStartOperation } from '../temporal/charge-start';
import { buildChargeDraft, type ChargeRequest } from './charge-draft';
import { renderError } from './render-error';
import { isTemporalUnavailable, serviceUnavailable, withTemporalDeadline } from './dependency-unavailable';
import type { Caller, ServiceDeps } from './context';

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
 * POST /v1/charges. Idempotency in two layers: the HTTP key (scoped, body-hashed, first answer
 * stored) and the workflow id (the charge id the key was first claimed with), so a retry after any
 * crash converges on one charge and one workflow.
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
  const scope: IdempotencyScope = { merchantId: caller.merchantId, environment: caller.environment, key };
  const claim = await claimIdempotencyKey(deps.orm, scope, hash, newId('charge'));
  if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
  if (claim.kind === 'in_use') throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  if (claim.kind === 'reused') throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');

  try {
    const answer = await startCharge(deps, caller, claim.resourceId, request, requestId, metadataJson);
    return { ...(await completeIdempotencyKey(deps.orm, scope, answer.status, answer.body)), replayed: false };
  } catch (error) {
    // Whether the workflow started is unknown: keep the claim (same charge id) but let a retry take it now.
    await unlockIdempotencyKey(deps.orm, scope).catch(() => undefined);
    throw error;
  }
}

async function startCharge(
  deps: ServiceDeps,
  caller: Caller,
  chargeId: string,
  request: ChargeRequest,
  requestId: string,
  metadataJson: string | undefined,
): Promise<{ status: number; body: string }> {
  const draft = buildChargeDraft(caller, chargeId, request, new Date(), metadataJson);
  let acceptance: ChargeAcceptance;
  try {
    // Bounded: with no worker polling (or Temporal down) the update would otherwise wait forever.
    acceptance = await withTemporalDeadline(deps.temporal, deps.temporalDeadlineMs, () =>
      deps.temporal.client.workflow.executeUpdateWithStart(acceptChargeUpdate, {
        updateId: ACCEPT_UPDATE_ID,
        startWorkflowOperation: chargeStartOperation(draft, deps.taskQueue),
      }),
    );
  } catch (error) {
    // A retry that finds the workflow closed, or another run (a reversal) under the charge id: the
    // charge was accepted before, so answer as the acceptance did, from the projection.
    const existing = await findCharge(deps.orm, caller, chargeId);
    if (!existing) {
      // Not accepted in time: 503, and the caller's retry with the same key reuses this charge id
      // (the workflow, if it started, is picked up again by the same update).
      if (isTemporalUnavailable(error)) {
        throw serviceUnavailable('The charge could not be accepted in time (the payment workers may be unavailable).');
      }
      throw error;
    }
    const unresolved = railPlan(existing.environment, draft.sandboxOutcome).kind === 'unresolved';
    acceptance = { kind: unresolved ? 'partner_timeout' : 'accepted', charge: existing };
  }
  if (acceptance.kind === 'partner_timeout') {
    return renderError(
      new ApiError('partner_timeout', 'The partner did not answer in time. The charge stays unresolved; its outcome arrives as an event (GET /v1/events).', {
        transaction_id: acceptance.charge.id,
      }),
      requestId,
    );
  }
  return chargeAnswer(acceptance.charge);
}

function chargeAnswer(charge: ChargeRecord): { status: number; body: string } {
  return { status: 200, body: chargeJson(charge) };
}
