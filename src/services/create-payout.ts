import { ApiError } from '../domain/errors';
import { computePayoutFee, payoutJson } from '../domain/payout';
import type { IdempotencyScope } from '../persistence/idempotency-store';
import { writePayoutOnce } from '../persistence/payouts/payout-create-store';
import { applyLiveLimits } from '../persistence/merchants/live-limits-store';
import { recordPaymentParty } from '../persistence/payment-party-store';
import { findBank } from '../persistence/payouts/payout-reference';
import { markPayoutWorkflowStarted } from '../persistence/payouts/payout-store';
import { findCurrency, findMomoNetwork } from '../persistence/reference-store';
import { newId } from '../support/new-id';
import { startPayoutWorkflow } from '../temporal/payout-start';
import type { StoredAnswer } from './create-charge';
import { startWithin } from './start-within';
import { buildPayoutDraft, type PayoutRequest } from './payout-draft';
import type { Caller, ServiceDeps } from './context';
import { newPaymentRoute } from './payment-route';

/** Checks the request against the reference lists and the amount limits; nothing is stored when this throws. */
async function checkPayoutRequest(deps: ServiceDeps, request: PayoutRequest): Promise<void> {
  const currency = await findCurrency(deps.orm, request.currency);
  if (!currency) throw new ApiError('invalid_request', `Unknown currency "${request.currency}"; see GET /v1/reference/currencies.`, { param: 'currency' });
  if (computePayoutFee(request.amount, request.channel).totalDebit > Number.MAX_SAFE_INTEGER) {
    throw new ApiError('invalid_request', 'amount is too large: amount plus fee must stay below 2^53.', { param: 'amount' });
  }
  if (request.channel === 'mobile_money') {
    const network = await findMomoNetwork(deps.orm, request.momo_network_id!);
    if (!network) throw new ApiError('invalid_request', 'Unknown momo_network_id; see GET /v1/reference/momo-networks.', { param: 'momo_network_id' });
    if (network.currency !== request.currency) {
      throw new ApiError('invalid_request', `Network ${network.name} (${network.country}) pays out ${network.currency}, not ${request.currency}.`, { param: 'currency' });
    }
    return;
  }
  const bank = await findBank(deps.orm, request.bank_code!);
  if (!bank) throw new ApiError('invalid_request', 'Unknown bank_code; see GET /v1/reference/banks.', { param: 'bank_code' });
  if (bank.currency !== request.currency) {
    throw new ApiError('invalid_request', `Bank ${bank.name} (${bank.country}) pays out ${bank.currency}, not ${request.currency}.`, { param: 'currency' });
  }
}

/**
 * POST /v1/payouts: write first, then start, as charges (docs/architecture.md, "Create path"). One
 * database transaction claims the Idempotency-Key, stores the answer and writes the payout, its
 * reservation of total_debit and its first event, refusing with 422 `insufficient_balance` (nothing
 * written) when the available balance cannot cover it; then the payout workflow (id = payout id,
 * input `{ payoutId }`) is started, waiting at most CHARGE_START_WAIT_MS. A start that is slow or fails
 * is finished by the payout-start relay (src/runtime/payout-start-relay.ts).
 */
export async function createPayout(
  deps: ServiceDeps,
  caller: Caller,
  key: string,
  request: PayoutRequest,
  hash: string,
  metadataJson?: string,
): Promise<StoredAnswer> {
  await checkPayoutRequest(deps, request);
  const { rail, railRoute } = await newPaymentRoute(deps, caller, 'payouts', request.channel, request.currency, true);
  const scope: IdempotencyScope = { merchantId: caller.merchantId, environment: caller.environment, key };
  const now = new Date();
  const write = await writePayoutOnce(
    deps.orm,
    scope,
    hash,
    newId('payout'),
    (id, threshold) => ({ ...buildPayoutDraft(caller, id, request, now, threshold, metadataJson), rail, railRoute }),
    (payout) => ({ status: 200, body: payoutJson(payout) }),
    {
      check: (em, payout) => (payout.environment === 'live' ? applyLiveLimits(em, payout.merchantId, 'payout', payout.amount, payout.currency) : Promise.resolve()),
      written: (em, payout) => recordPaymentParty(em, deps.secretBox, payout.id, request.recipient.identifier),
    },
  );
  if (write.kind === 'replay') return { status: write.status, body: write.body, replayed: true };
  if (write.kind === 'in_use') throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  if (write.kind === 'reused') throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
  await startWithin(deps, { kind: 'payout', id: write.payout.id, start: () => startPayoutWorkflow(deps.temporal.client, deps.taskQueue, write.payout), markStarted: () => markPayoutWorkflowStarted(deps.orm, write.payout.id) });
  return { ...write.answer, replayed: false };
}
