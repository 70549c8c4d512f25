import { normalizeBankCode, parseSettlementAccountNumber, sealAccountNumber } from '../../domain/settlement-account';
import { updateMerchantSettings, type MerchantSettingsChange } from '../../persistence/merchants/merchant-settings-store';
import { createMerchant, verifyMerchant } from '../../persistence/merchants/merchant-store';
import { secretBoxFor } from '../../runtime/secrets-key';
import { newId } from '../../support/new-id';
import type { StepHandler } from '../types';
import { answerLine, done, keyOf, merchantById, ok, refIndex, resolveRef, sendRecorded, skipped } from './common';

/**
 * `create_merchant`, as `merchants create|verify|set` do it (the operator's stores): a merchant and its
 * keys, verified for live unless the plan says not, live limits wide enough, its payout review
 * threshold, and a settlement account when the engine gives its secret box (or its configuration).
 */
export const createMerchantStep: StepHandler = async (ctx, step) => {
  const actor = { operator: 'simulation', reason: 'simulation: merchants create', requestId: newId('request') };
  const m = await createMerchant(ctx.orm, String(step.params.name), actor);
  if (step.params.verified) await verifyMerchant(ctx.orm, m.id, { ...actor, reason: 'simulation: merchants verify', requestId: newId('request') });
  const change: MerchantSettingsChange = {
    payoutReviewThreshold: Number(step.params.review_threshold),
    liveMaxAmount: { GHS: 10_000_000 },
    liveDailyLimit: { GHS: 10_000_000_000 },
  };
  const account = parseSettlementAccountNumber(String(step.params.settlement_account));
  const box = ctx.secretBox ?? (ctx.config ? secretBoxFor(ctx.config) : null);
  if (box && account) change.settlementAccount = { bankCode: normalizeBankCode('GCB')!, account: sealAccountNumber(box, account) };
  await updateMerchantSettings(ctx.orm, m.id, change, { ...actor, reason: 'simulation: merchants set', requestId: newId('request') });
  ctx.registry.merchants.push({ id: m.id, testKey: m.testKey.secret, liveKey: m.liveKey.secret });
  ctx.registry.add('merchant', m.id, refIndex(step));
  return done(step, `${m.id}${step.params.verified ? ' verified' : ''}${change.settlementAccount ? '' : ' no settlement account'}`, [{ kind: 'merchant', id: m.id }]);
};

/** `create_endpoint`: a sandbox webhook endpoint for every event, at one of the engine's receivers. */
export const createEndpointStep: StepHandler = async (ctx, step) => {
  const ref = resolveRef(ctx, step, 'merchant');
  if (typeof ref === 'string') return skipped(step, ref);
  const merchant = merchantById(ctx, ref.id)!;
  const receiver = Number(step.params.receiver);
  const answer = await ctx.api('sandbox', 'POST', '/v1/webhook-endpoints', {
    key: keyOf(merchant, 'sandbox'),
    body: { url: ctx.receivers.url(receiver), subscribed_events: [], description: `simulation step ${step.n}`, timeout_seconds: Number(step.params.timeout_seconds) },
  });
  const line = answerLine(answer);
  if (!ok(answer)) return done(step, line);
  const id = (answer.json as { id: string }).id;
  ctx.registry.add('endpoint', id, { ...refIndex(step), merchant: merchant.id, receiver: String(receiver) });
  return done(step, line, [{ kind: 'endpoint', id }]);
};

/** The endpoint a step acts on and its merchant's test key, or why not. */
function endpointOf(ctx: Parameters<StepHandler>[0], step: Parameters<StepHandler>[1]): { id: string; key: string } | string {
  const ref = resolveRef(ctx, step, 'endpoint');
  if (typeof ref === 'string') return ref;
  const merchant = merchantById(ctx, ref.extra.merchant);
  return merchant ? { id: ref.id, key: keyOf(merchant, 'sandbox') } : `the merchant of endpoint ${ref.id} is unknown`;
}

/** `rotate_endpoint_secret`: a new signing secret (the old one keeps signing for its overlap). */
export const rotateEndpointStep: StepHandler = async (ctx, step) => {
  const endpoint = endpointOf(ctx, step);
  if (typeof endpoint === 'string') return skipped(step, endpoint);
  const answer = await ctx.api('sandbox', 'POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { key: endpoint.key });
  return done(step, answerLine(answer));
};

/** `disable_endpoint`: PATCH its status (`disabled` mostly; `active` re-enables it). */
export const disableEndpointStep: StepHandler = async (ctx, step) => {
  const endpoint = endpointOf(ctx, step);
  if (typeof endpoint === 'string') return skipped(step, endpoint);
  const answer = await ctx.api('sandbox', 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { key: endpoint.key, body: { status: step.params.status } });
  return done(step, `${step.params.status}: ${answerLine(answer)}`);
};

/** `replay_delivery`: one of the endpoint's deliveries (its list's `pick`-th, modulo), replayed with an Idempotency-Key. */
export const replayDeliveryStep: StepHandler = async (ctx, step) => {
  const endpoint = endpointOf(ctx, step);
  if (typeof endpoint === 'string') return skipped(step, endpoint);
  const list = await ctx.api('sandbox', 'GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=100`, { key: endpoint.key });
  answerLine(list);
  const deliveries = ok(list) ? ((list.json as { data?: Array<{ id: string }> }).data ?? []) : [];
  if (deliveries.length === 0) return skipped(step, `endpoint ${endpoint.id} has no delivery to replay (${list.status})`);
  const delivery = deliveries[Number(step.params.pick) % deliveries.length]!;
  const answer = await sendRecorded(ctx, step, { environment: 'sandbox', method: 'POST', path: `/v1/webhook-deliveries/${delivery.id}/replay`, key: endpoint.key, body: undefined, idempotencyKey: String(step.params.idempotency_key) });
  return done(step, `${delivery.id}: ${answerLine(answer)}`);
};
