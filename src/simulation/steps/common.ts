import type { Ref, SimAnswer, SimContext, SimMerchant, Step, StepOutcome } from '../types';

/* What every step handler shares: outcomes, references, the merchant's key, recorded requests. */

export type Created = NonNullable<StepOutcome['created']>;

export function done(step: Step, detail: string, created?: Created): StepOutcome {
  return { n: step.n, kind: step.kind, result: 'done', detail, ...(created && created.length > 0 ? { created } : {}) };
}

export function skipped(step: Step, why: string): StepOutcome {
  return { n: step.n, kind: step.kind, result: 'skipped', detail: why };
}

/** The step's reference of `kind` resolved, or why it cannot be (cut by the shrinker, or refused when it ran). */
export function resolveRef(ctx: SimContext, step: Step, kind: Ref['kind']): { id: string; extra: Record<string, string> } | string {
  const ref = step.refs?.find((r) => r.kind === kind);
  if (!ref) return `no ${kind} reference`;
  return ctx.registry.resolve(ref) ?? `${kind} #${ref.index} was not created (cut, or refused when its step ran)`;
}

export function merchantById(ctx: SimContext, id: string | undefined): SimMerchant | null {
  return ctx.registry.merchants.find((m) => m.id === id) ?? null;
}

export const keyOf = (merchant: SimMerchant, environment: 'sandbox' | 'live') => (environment === 'live' ? merchant.liveKey : merchant.testKey);

/**
 * An answer of the engine. A 4xx is a refusal: an outcome the step records. A 500 is an engine failure:
 * the step throws (503 and its kin are the documented answers of an outage, e.g. after a connection cut).
 */
export function answerLine(answer: SimAnswer): string {
  if (answer.status === 500) throw new Error(`the engine answered 500: ${JSON.stringify(answer.json).slice(0, 400)}`);
  const json = answer.json as { id?: string; status?: string; error?: { code?: string } } | null;
  if (answer.status >= 400) return `${answer.status} ${json?.error?.code ?? ''}`.trim();
  return [answer.status, json?.id, json?.status].filter((x) => x !== undefined && x !== null).join(' ');
}

export const ok = (answer: SimAnswer) => answer.status >= 200 && answer.status < 300;

/**
 * A request with an Idempotency-Key, recorded in `ctx.registry.requests` with its first answer (for
 * `repeat_request` and the idempotency invariant) under the plan's `request_index`.
 */
export async function sendRecorded(
  ctx: SimContext,
  step: Step,
  request: { environment: 'sandbox' | 'live'; method: string; path: string; key: string; body: unknown; idempotencyKey: string },
): Promise<SimAnswer> {
  const at = await ctx.now();
  const answer = await ctx.api(request.environment, request.method, request.path, { key: request.key, body: request.body, idempotencyKey: request.idempotencyKey });
  const position = ctx.registry.requests.length;
  ctx.registry.requests.push({ ...request, status: answer.status, json: answer.json, at });
  const index = step.params.request_index;
  ctx.registry.add('request', String(position), typeof index === 'number' ? { ref_index: String(index) } : {});
  return answer;
}

/** The step's `params.ref_index` for the registry (the index the plan gave its creation). */
export function refIndex(step: Step): Record<string, string> {
  return typeof step.params.ref_index === 'number' ? { ref_index: String(step.params.ref_index) } : {};
}

/** A refusal by an operator's service (it throws an Error with why): a short line; a programming error is rethrown. */
export function refusal(error: unknown): string {
  if (error instanceof TypeError || error instanceof ReferenceError || error instanceof SyntaxError) throw error;
  // A workflow's refusal comes wrapped ("Workflow execution failed", its cause the why): the innermost message.
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  const message = inner instanceof Error ? inner.message : String(inner);
  return `refused: ${message.split('\n')[0]!.slice(0, 160)}`;
}
