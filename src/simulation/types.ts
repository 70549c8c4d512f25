/**
 * The deterministic simulation of the whole engine (issue 33, `npm run simulate`): the shapes that the
 * planner, the engine, the steps, the invariants and the shrinker share. docs/simulation.md explains
 * the design.
 *
 * A run is a PLAN, then its execution:
 * - the plan is a pure function of (seed, steps): a list of `Step`s, plain JSON. A step names what it
 *   acts on by reference to an earlier step's creation (`Ref`), never by id, so a plan cut down by the
 *   shrinker still makes sense (a step whose reference was cut is skipped, and says so);
 * - the execution runs the steps one by one against one engine (API, workflows, activities, stores on
 *   a real PostgreSQL, Temporal's time-skipping test server, the fake partner and webhook receivers in
 *   this process), waits until the engine is quiet, then checks every invariant.
 */

import type { Config } from '../config';
import type { Orm } from '../persistence/orm';
import type { SecretBox } from '../support/secret-box';
import type { TemporalHandle } from '../temporal/connection';
import type { FakeTransaction } from '../rail/fake-partner';
import type { FakeAggregatorTransaction } from '../rail/aggregator/fake';

/** The fake partners' records of the run (SimContext.partner.records): the MoMo fake's per product, and the aggregator's (issue 45). */
export interface PartnerBooks {
  collection: FakeTransaction[];
  disbursement: FakeTransaction[];
  /** The fake aggregator's books, every resource (absent: a context with the MoMo partner only). */
  aggregator?: FakeAggregatorTransaction[];
}

/** A card as the hosted page takes it (never in a plan's trace: the step builds it from the plan's ending). */
export interface SimCard {
  number: string;
  expiryMonth: number;
  expiryYear: number;
  cvv: string;
}

/** Every kind of step the planner may pick. */
export type StepKind =
  | 'create_merchant'
  | 'create_endpoint'
  | 'rotate_endpoint_secret'
  | 'disable_endpoint'
  | 'replay_delivery'
  | 'sandbox_charge'
  | 'live_charge'
  | 'repeat_request'
  | 'payout'
  | 'review_payout'
  | 'refund'
  | 'dispute'
  | 'dispute_evidence'
  | 'settlement_run'
  | 'operator_action'
  | 'partner_behaviour'
  | 'partner_statement'
  | 'receiver_failure'
  | 'restart_worker'
  | 'cut_db_connections'
  | 'fail_activity'
  | 'time_jump'
  | 'settlement_account_change'
  | 'terminate_run'
  | 'restart_settlement'
  | 'reset_run'
  | 'late_return_refused'
  | 'settlement_retry_late'
  | 'unanswered_payout_jump'
  | 'partner_pays_late'
  | 'burst'
  | 'partner_down'
  | 'partner_declining';

/** A reference to the n-th object of a kind created by the plan's earlier steps (0-based, in plan order). */
export interface Ref {
  kind: 'merchant' | 'endpoint' | 'charge' | 'payout' | 'refund' | 'dispute' | 'delivery' | 'request';
  index: number;
}

/** One step of a plan: plain JSON, so a plan can be printed, cut down and written into a jest file. */
export interface Step {
  /** Its place in the original plan (kept when the shrinker cuts others out). */
  n: number;
  kind: StepKind;
  /** What it acts on. */
  refs?: Ref[];
  /** Everything else the step needs, drawn from the seed when the plan was made. */
  params: Record<string, string | number | boolean | null>;
}

export interface Plan {
  seed: number;
  steps: Step[];
}

/** What a step did, for the run's trace (the same seed gives the same trace). */
export interface StepOutcome {
  n: number;
  kind: StepKind;
  /** `done`, or `skipped` with why (a reference cut by the shrinker, nothing to act on). */
  result: 'done' | 'skipped';
  /** A short line: the answer's status and the object's id, say. */
  detail: string;
  /** Objects this step created, by kind, in order: what later `Ref`s resolve to. */
  created?: Array<{ kind: Ref['kind']; id: string }>;
}

/** An invariant broken after a step. */
export interface Violation {
  invariant: string;
  /** One line per broken case. */
  lines: string[];
}

/** The end of a run. */
export interface RunResult {
  seed: number;
  stepsRun: number;
  trace: StepOutcome[];
  /** The first step after which an invariant failed, with what failed; null when none did. */
  failure: { step: Step; violations: Violation[] } | null;
}

/** An answer of the engine's API (sandbox or live listener, in this process). */
export interface SimAnswer {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

/** A merchant the run created, with its keys (secrets stay in memory, never in a trace or a file). */
export interface SimMerchant {
  id: string;
  testKey: string;
  liveKey: string;
}

/**
 * What a step handler and an invariant see of the engine (src/simulation/engine.ts builds it).
 * Steps act only through it: the API over HTTP, the operator's own services (as the CLI runs them),
 * and the engine's controls (time, worker, database, partner, receivers).
 */
export interface SimContext {
  /** The run's ORM on its own database (for invariants and for the operator's services). */
  orm: Orm;
  /** The Temporal client of the time-skipping test server (describe, signal: what an operator's tools use). */
  temporal: TemporalHandle;
  /** The base task queue the engine's worker polls. */
  taskQueue: string;
  /** One request to the sandbox or live listener; `idempotencyKey` sets the header. */
  api(
    environment: 'sandbox' | 'live',
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; idempotencyKey?: string },
  ): Promise<SimAnswer>;
  /** What the plan's earlier steps created: `resolve` answers null for a reference that was cut. */
  registry: SimRegistry;
  /** Moves workflow time (and the process's and the database's clocks with it) forward by `ms`. */
  timeJump(ms: number): Promise<void>;
  /** The simulated now (ms since the epoch): the test server's clock. */
  now(): Promise<number>;
  /** Stops the worker (and its relays) and starts a new one: workflows continue from their histories. */
  restartWorker(): Promise<void>;
  /** Terminates every server session of the run's database (pg_terminate_backend): pools reconnect. */
  cutDbConnections(): Promise<void>;
  /** The next `times` attempts of the activity named `activity` fail (a retryable error), then it runs again. */
  /** `when: 'after'`: the calls run, then their answers are lost (a retryable failure once the side effect committed). */
  failActivity(activity: string, times: number, when?: 'before' | 'after'): void;
  /** The in-process webhook receivers: a URL per receiver, and its failure mode from now on. */
  receivers: {
    url(index: number): string;
    setMode(index: number, mode: 'ok' | 'fail_500' | 'slow' | 'drop'): void;
    /**
     * Every request received so far (signature checked against the endpoint's secrets by the invariant).
     * `deliveryId` and `attempt` (X-Service-Delivery-Id, X-Service-Attempt; optional, added by helper C)
     * let the deliveries invariant match each request to its recorded attempt exactly; `refusal` says
     * why a signature did not verify.
     */
    received(): ReadonlyArray<{ receiver: number; eventId: string; signatureOk: boolean; at: number; deliveryId?: string; attempt?: number; refusal?: string; answered?: number }>;
  };
  /** The fake partner in this process: its behaviour for the next live payments, and its statement. */
  partner: {
    /** `late`: answers after a delay; `twice`: two callbacks; `never`: no answer; `normal`. */
    setBehaviour(behaviour: 'normal' | 'late' | 'twice' | 'never' | 'duplicate_refused' | 'pending_duplicate_refused' | 'refuse'): void;
    /** The behaviour the next references get (optional: issue 43's steps that play one for a step only). */
    behaviour?(): 'normal' | 'late' | 'twice' | 'never' | 'duplicate_refused' | 'pending_duplicate_refused' | 'refuse';
    /** The partner ends a reference it keeps now, as its own books say (optional: a late SUCCESSFUL); false when it keeps none. */
    settle?(product: 'collection' | 'disbursement', referenceId: string, final: { status: 'SUCCESSFUL' } | { status: 'FAILED'; reason: string }): boolean;
    /** The partner's statement of a day (what `reconcile` imports), with `breaks` lines changed. */
    statement(day: string, breaks: number): Promise<string>;
    /**
     * The fake partner's own records (optional: a context without a partner has none): every
     * reference it keeps, per product, as it keeps it (status, amount, currency, externalId). What
     * the partner-books invariant compares our books with (invariants/partner-books.ts).
     */
    records?(): PartnerBooks;
    /**
     * Issue 46 (optional: an engine with both partners has it): a partner `down` (its calls fail as
     * never reached, RailUnavailable.notReached) or `declining` (the fake's setDeclining), on or off.
     */
    fault?(kind: 'down' | 'declining', partner: 'momo' | 'aggregator', on: boolean): void;
  };
  /**
   * Live cards (issue 45, optional: an engine with the aggregator has them): what the hosted card
   * page does (src/services/live-card.ts), and the customer's part at the aggregator's challenge.
   */
  liveCards?: {
    /** The page sends the card (`sendLiveCard`); a line: the result and the reference. */
    send(charge: { chargeId: string; amount: number; currency: string }, card: SimCard): Promise<string>;
    /** The customer's one-time code (`sendCardOtp`). */
    otp(chargeId: string, otp: string): Promise<string>;
    /** The customer on the aggregator's 3-D Secure page (authenticate or cancel), then back on ours (`cardReturned`). */
    challenge(chargeId: string, action: 'authenticate' | 'cancel'): Promise<string>;
  };
  /** Waits until nothing runs: no workflow task or activity pending, outboxes and start relays drained. */
  settle(): Promise<void>;
  /**
   * The engine's configuration (optional, added by helper B): the operator services' request deadline
   * and the secret box that seals a merchant's settlement account (`secretBoxFor(config)`). Absent: the
   * steps use defaults and merchants get no settlement account (settlement runs then skip them).
   */
  config?: Config;
  /** The engine's secret box (optional, added by helper B): seals a merchant's settlement account; before `config`'s. */
  secretBox?: SecretBox;
}

/** The objects a run created, by kind, in creation order (what a `Ref` names). */
export interface SimRegistry {
  add(kind: Ref['kind'], id: string, extra?: Record<string, string>): void;
  resolve(ref: Ref): { id: string; extra: Record<string, string> } | null;
  count(kind: Ref['kind']): number;
  merchants: SimMerchant[];
  /**
   * Requests sent with an Idempotency-Key and their first answers (for `repeat_request` and its invariant);
   * `repeats`: the answers of each `repeat_request` of it, in order (added by helper B); `at`: the
   * simulated clock when it was sent (the reference model's start of the payment's timers).
   */
  requests: Array<{ environment: 'sandbox' | 'live'; method: string; path: string; key: string; idempotencyKey: string; body: unknown; status: number; json: unknown; repeats?: Array<{ status: number; json: unknown }>; at?: number }>;
  /** Every operator action the plan took (`operator_action` steps), by command and the id acted on: what the reference model allows to change an outcome. */
  operatorActed: Array<{ command: string; id: string }>;
  /** The answers of each `burst` of one request under one Idempotency-Key (steps/burst.ts), for its invariant. */
  bursts: Array<{ n: number; idempotencyKey: string; answers: Array<{ status: number; id?: string; code?: string }> }>;
  /** A merchant's available sandbox balance before and right after a `burst` of payouts (steps/burst.ts). */
  balanceRaces: Array<{ n: number; merchant: string; before: number; after: number }>;
}

/** A step handler: does the step, returns what it did (never throws for a refused request: that is an outcome). */
export type StepHandler = (ctx: SimContext, step: Step) => Promise<StepOutcome>;

/** An invariant: what it checked, and what broke (an empty list when nothing did). */
export interface Invariant {
  name: string;
  check(ctx: SimContext): Promise<string[]>;
}
