import { apiRequest, type ApiAnswer } from './api-client';
import { runCli } from './cli-runner';
import { createAnswer, createRecord, type CreateRecord } from './create-history';
import { chargeBody, payoutBody } from './load-bodies';
import type { Rng } from './random';
import type { RequestLog } from './request-log';
import type { ChaosMerchant } from './setup';

export type LoadOp = 'sandbox_charge' | 'live_charge' | 'sandbox_payout' | 'live_payout' | 'refund' | 'live_refund' | 'dispute' | 'evidence';

/** The mix of the steady stream (settlement runs come on their own clock). */
export const LOAD_MIX: Readonly<Record<LoadOp, number>> = {
  sandbox_charge: 30,
  live_charge: 20,
  sandbox_payout: 8,
  live_payout: 6,
  refund: 8,
  // Issue 45: live refunds go to the partner (its refund), checked by money-once and the history checker.
  live_refund: 5,
  dispute: 5,
  evidence: 4,
};

export interface LoadDeps {
  dir: string;
  log: RequestLog;
  ports: { sandbox: number; live: number };
  merchants: ChaosMerchant[];
  say: (line: string) => void;
}

export interface LoadSettings {
  /** Operations started per second. */
  ratePerS: number;
  /** Seconds between settlement runs (through the CLI). */
  settlementEveryS: number;
  /** At most this many operations in flight (their retries included). */
  maxInFlight: number;
}

interface Created {
  id: string;
  merchant: ChaosMerchant;
  at: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A create retried with the same Idempotency-Key while the answer is not definite. */
const NOT_DEFINITE = (a: ApiAnswer) => a.status === 0 || a.status === 503 || a.status === 502 || a.status === 500 || (a.status === 409 && (a.body as { error?: { code?: string } })?.error?.code === 'idempotency_key_in_use');

/**
 * The steady, seeded stream of sandbox and live charges, payouts, refunds, disputes and their
 * evidence through the public API, and settlement runs through the CLI. Every draw comes from the
 * load's own random stream, in order, so a seed gives the same sequence of operations and bodies.
 * A create whose answer is not definite (no answer, 5xx, key in use) is sent again with the same
 * Idempotency-Key until it is, as a client should: faults must not make it create twice.
 */
export class LoadGenerator {
  readonly counts: Record<LoadOp | 'settlement_run', number> = { sandbox_charge: 0, live_charge: 0, sandbox_payout: 0, live_payout: 0, refund: 0, live_refund: 0, dispute: 0, evidence: 0, settlement_run: 0 };
  /** Creates that got a definite answer only after retries, and those that never did. */
  retried = 0;
  gaveUp = 0;
  settlementFailures: string[] = [];
  /** Every create sent, with every answer under its key (create-history.ts): what the history check reads. */
  readonly history: CreateRecord[] = [];
  private readonly sandboxCharges: Created[] = [];
  /** Live charges answered 200 (their refunds go to the partner once they are old enough to have succeeded). */
  private readonly liveCharges: Created[] = [];
  private readonly openDisputes: Created[] = [];
  private readonly disputed = new Set<string>();
  private stopping = false;
  private inFlight = new Set<Promise<void>>();
  private n = 0;

  constructor(private readonly deps: LoadDeps, private readonly rng: Rng, private readonly settings: LoadSettings) {}

  /** Runs until stop(); resolves once everything started has ended. */
  async run(): Promise<void> {
    const settlements = this.settlementLoop();
    const interval = 1000 / this.settings.ratePerS;
    let next = Date.now();
    while (!this.stopping) {
      // Draw every operation of the schedule even when it cannot start (too many in flight): the stream stays the seed's.
      const op = this.rng.weighted(LOAD_MIX);
      const merchant = this.rng.pick(this.deps.merchants);
      const draw = this.rng.fork(`op-${this.n}`);
      this.n++;
      if (this.inFlight.size < this.settings.maxInFlight) this.track(this.perform(op, merchant, draw, this.n));
      next += interval;
      await sleep(Math.max(0, next - Date.now()));
    }
    await settlements;
    await Promise.allSettled([...this.inFlight]);
  }

  stop(): void {
    this.stopping = true;
  }

  private track(p: Promise<void>): void {
    const tracked = p.catch((e: unknown) => this.deps.say(`load: ${(e as Error).message}`)).finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private async create(port: number, key: string, path: string, body: unknown, idempotencyKey: string | undefined, what: { op: string; environment: 'sandbox' | 'live'; merchant: ChaosMerchant }): Promise<ApiAnswer> {
    const record = createRecord(what.op, what.environment, what.merchant.id, path, body, idempotencyKey);
    this.history.push(record);
    for (let attempt = 1; ; attempt++) {
      const answer = await apiRequest(this.deps.log, 'load', port, 'POST', path, { key, body, idempotencyKey });
      record.answers.push(createAnswer(answer));
      if (!NOT_DEFINITE(answer)) {
        if (attempt > 1) this.retried++;
        return answer;
      }
      // Keep retrying past stop (bounded): an answer that never came must not leave a create unknown.
      if (attempt >= 30) {
        this.gaveUp++;
        return answer;
      }
      const after = Number(answer.headers?.get('retry-after') ?? '') || 1;
      await sleep(Math.min(5, after) * 1000);
    }
  }

  private async perform(op: LoadOp, merchant: ChaosMerchant, rng: Rng, n: number): Promise<void> {
    const { sandbox, live } = this.deps.ports;
    const key = rng.uuid();
    switch (op) {
      case 'sandbox_charge':
      case 'live_charge': {
        const env = op === 'sandbox_charge' ? 'sandbox' : 'live';
        this.counts[op]++;
        const a = await this.create(env === 'sandbox' ? sandbox : live, env === 'sandbox' ? merchant.testKey : merchant.liveKey, '/v1/charges', chargeBody(rng, env, n), key, { op, environment: env, merchant });
        const id = (a.body as { id?: string })?.id;
        if (typeof id === 'string' && a.status < 300) (env === 'sandbox' ? this.sandboxCharges : this.liveCharges).push({ id, merchant, at: Date.now() });
        return;
      }
      case 'sandbox_payout':
      case 'live_payout': {
        const env = op === 'sandbox_payout' ? 'sandbox' : 'live';
        this.counts[op]++;
        await this.create(env === 'sandbox' ? sandbox : live, env === 'sandbox' ? merchant.testKey : merchant.liveKey, '/v1/payouts', payoutBody(rng, env, n), key, { op, environment: env, merchant });
        return;
      }
      case 'refund': {
        const charge = this.olderCharge(rng, merchant);
        if (!charge) return;
        this.counts.refund++;
        await this.create(sandbox, charge.merchant.testKey, '/v1/refunds', { charge: charge.id, amount: rng.int(1, 10) * 100, reason: 'requested_by_customer' }, key, { op, environment: 'sandbox', merchant: charge.merchant });
        return;
      }
      case 'live_refund': {
        const charge = this.olderCharge(rng, merchant, this.liveCharges);
        if (!charge) return;
        this.counts.live_refund++;
        await this.create(live, charge.merchant.liveKey, '/v1/refunds', { charge: charge.id, amount: rng.int(1, 10) * 100, reason: 'requested_by_customer' }, key, { op, environment: 'live', merchant: charge.merchant });
        return;
      }
      case 'dispute': {
        const charge = this.olderCharge(rng, merchant);
        if (!charge || this.disputed.has(charge.id)) return;
        this.disputed.add(charge.id);
        this.counts.dispute++;
        const a = await this.create(sandbox, charge.merchant.testKey, `/v1/sandbox/charges/${charge.id}/disputes`, { reason: 'general', amount: rng.int(1, 10) * 100 }, key, { op, environment: 'sandbox', merchant: charge.merchant });
        const id = (a.body as { id?: string })?.id;
        if (typeof id === 'string' && a.status < 300) this.openDisputes.push({ id, merchant: charge.merchant, at: Date.now() });
        return;
      }
      case 'evidence': {
        const ready = this.openDisputes.filter((d) => Date.now() - d.at > 3_000);
        if (ready.length === 0) return;
        const dispute = rng.pick(ready);
        this.openDisputes.splice(this.openDisputes.indexOf(dispute), 1);
        this.counts.evidence++;
        // No Idempotency-Key: evidence is taken once (a retry after a lost answer may see 409 evidence_not_accepted).
        await this.create(sandbox, dispute.merchant.testKey, `/v1/disputes/${dispute.id}/evidence`, { text: rng.chance(0.3) ? 'losing_evidence: receipt missing' : 'signed delivery receipt attached' }, undefined, { op, environment: 'sandbox', merchant: dispute.merchant });
        return;
      }
    }
  }

  /** A sandbox charge old enough to have succeeded (refunds and disputes of others are refused with a 422, which is fine). */
  private olderCharge(rng: Rng, merchant: ChaosMerchant, from: readonly Created[] = this.sandboxCharges): Created | undefined {
    const old = from.filter((c) => c.merchant === merchant && Date.now() - c.at > 6_000);
    return old.length ? rng.pick(old) : undefined;
  }

  private async settlementLoop(): Promise<void> {
    const rng = this.rng.fork('settlements');
    let waited = 0;
    while (!this.stopping) {
      await sleep(1_000);
      if (++waited < this.settings.settlementEveryS) continue;
      waited = 0;
      const merchant = rng.pick(this.deps.merchants);
      const env = rng.pick(['test', 'live'] as const);
      this.counts.settlement_run++;
      try {
        await runCli(this.deps.dir, ['settlements', 'run', '--merchant', merchant.id, '--env', env, '--reason', 'chaos load', '--operator', 'chaos']);
      } catch (e) {
        // A run refused while a dependency is down is expected; the next one settles what it missed.
        this.settlementFailures.push((e as Error).message.split('\n').slice(0, 2).join(' '));
      }
    }
  }
}
