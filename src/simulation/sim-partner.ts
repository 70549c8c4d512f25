import { Rng } from '../chaos/random';
import { behaviourOf, startFakePartner, type FakePartner } from '../rail/fake-partner';
import { endingOf } from '../rail/fake-partner/behaviours';
import { MomoPartnerRail } from '../rail/momo-adapter';
import { formatMomoAmount, parseMomoAmount } from '../rail/momo-amount';
import { statementToCsv } from '../rail/momo-statement';
import { productOfResource, RailUnavailable, type PartnerRail, type RailResource, type RailRequest } from '../rail/partner-rail';
import { AggregatorRail } from '../rail/aggregator/adapter';
import { AggregatorCards } from '../rail/aggregator/card';
import { startFakeAggregator, type FakeAggregator } from '../rail/aggregator/fake';
import { endingOf as aggregatorEndingOf } from '../rail/aggregator/fake/behaviours';
import { AGGREGATOR_ERRORS } from '../rail/aggregator/errors';
import { AGGREGATOR_WEBHOOK_ROUTE } from '../rail/aggregator/webhook-route';
import { RoutedRail } from '../rail/routed-rail';
import type { PartnerName } from '../domain/rail-routes';
import { realNow } from './sim-clock';

/**
 * The simulation's partner: the fake partner (src/rail/fake-partner) over real HTTP on 127.0.0.1 and
 * the real MoMo adapter in front of it, its callbacks to the engine's live listener.
 *
 * The fake chooses how it answers by the party's last four digits (fake-partner/behaviours.ts);
 * `setBehaviour` makes the NEXT references submitted play a behaviour whatever the plan's phone
 * number: at a reference's first submission the party's last four digits are replaced, at the rail's
 * edge, by the behaviour's suffix, and every later submission of that reference gets the same party.
 * `normal` leaves the party as the plan drew it. A refund (issue 45) names no party: it plays what
 * its request-to-pay's payer chose (the fake's `01NN` rule), so `setBehaviour` does not reach it; it
 * is sent as the engine made it. `twice` is `0005` (two callbacks), `never` is `0004`
 * (PENDING forever, no callback). `late` plays `0004` too, until the next time jump: then the engine
 * calls `releaseLate`, which makes each such reference SUCCESSFUL with its callback (the fake's
 * `settle`), so the answer comes after workflow time has moved (past the payment's deadline when the
 * jump was long enough) at a point of the run the plan fixes, not at a moment of real time.
 *
 * The fake's own timers run in real time (its approval after APPROVE_AFTER_MS, its callbacks).
 * `busy` names the references whose answer the fake has scheduled and not yet given (from the
 * behaviour's ending, fake-partner/behaviours.ts; a refund's from the behaviour the fake kept it
 * with), so the engine's settle waits for them: a step's outcome does not depend on how fast the
 * machine is.
 *
 * The partner's books (`fake.transactions(product)`, what the partner-books invariant reads) hold
 * refunds too: under `disbursement`, resource `refund`, externalId our refund's id (`re_…`).
 *
 * Issue 45: the second partner, the fake aggregator (src/rail/aggregator/fake) with the real
 * AggregatorRail in front of it, its webhooks to the live listener's aggregator route; the rail the
 * worker uses is a RoutedRail (each reference to the partner it was sent to, rail_references.partner),
 * as workers/main.ts builds it. `setBehaviour` reaches the aggregator the same way, by the party's
 * last four digits (the aggregator plays the MoMo fake's endings table): a wallet's number, and a bank
 * account (`<bank code>:<account>`: its last four digits). A card charge never passes through the
 * rail (the hosted page sends the card, `cards`): its behaviour is its card number's ending, chosen
 * by the plan. The aggregator's own real-time ends that the plan does not fix (a bank transfer's
 * account expiring unpaid, a card challenge never completed) are pushed out of any run's reach
 * (a week), so an unpaid bank charge stays PENDING at the aggregator as a `0004` request-to-pay does.
 */

/** `duplicate_refused`: the fake's `0013` (a second submission of a reference answers 400 before it de-duplicates); `pending_duplicate_refused`: `0014` (that, and no answer); `refuse`: `0001` (FAILED after acceptance; hand-written plans only). */
export type PartnerBehaviour = 'normal' | 'late' | 'twice' | 'never' | 'duplicate_refused' | 'pending_duplicate_refused' | 'refuse';

const SUFFIX: Record<Exclude<PartnerBehaviour, 'normal'>, string> = { late: '0004', twice: '0005', never: '0004', duplicate_refused: '0013', pending_duplicate_refused: '0014', refuse: '0001' };

/** The fake's approval delay (real ms). */
export const APPROVE_AFTER_MS = 300;
/** A plan's own `0012` party: SUCCESSFUL this long (real ms) after acceptance. */
export const LATE_SUCCESS_MS = 3_000;
/** Room for a due callback to reach the live listener and be answered. */
const CALLBACK_MARGIN_MS = 500;

export interface SimPartner {
  fake: FakePartner;
  /** The rail the worker and the API use (forwards to the adapter once `connect` ran). */
  rail: PartnerRail;
  /** Points the adapter's callbacks and the aggregator's webhooks at the live listener; `partnerOf` reads a reference's partner (rail_references.partner). */
  connect(liveUrl: string, callbackSecret: string, partnerOf: (referenceId: string) => Promise<PartnerName>): void;
  setBehaviour(behaviour: PartnerBehaviour): void;
  /** The behaviour the next references get. */
  behaviour(): PartnerBehaviour;
  /** Answers every `late` reference held so far (SUCCESSFUL, one callback); how many. */
  releaseLate(): number;
  /** The references whose scheduled answer is still to come, one line each. */
  busy(): string[];
  /** The collection statement of a UTC day as CSV (what `reconcile import` reads), its first `breaks` lines one minor unit more. */
  statement(day: string, breaks: number): Promise<string>;
  /** The fake aggregator (issue 45): the second partner. */
  aggregator: FakeAggregator;
  /** The aggregator's card calls, as the hosted page makes them (ServiceDeps.cardPayments). */
  cards: AggregatorCards;
  /** A card charge's reference was sent to the aggregator by the page (not the rail): its scheduled answer is awaited as a rail submission's. */
  cardSubmitted(referenceId: string): void;
  /** A card challenge was answered (an OTP sent, the 3-D Secure page used): its answer is due within `afterMs` of real time. */
  answerDue(referenceId: string, afterMs: number): void;
  /**
   * Issue 46 (steps/partner-faults.ts): a partner down (every call of the rail to it fails as never
   * reached, RailUnavailable.notReached, and never reaches the fake: the connection refused) or
   * declining (the fake's setDeclining), on or off.
   */
  fault(kind: 'down' | 'declining', partner: PartnerName, on: boolean): void;
  /** A reference the partner keeps is ended now as its books say, whichever partner keeps it; false when neither does. */
  settle(product: 'collection' | 'disbursement', referenceId: string, final: { status: 'SUCCESSFUL' } | { status: 'FAILED'; reason: string }): boolean;
  close(): Promise<void>;
}

/** The aggregator's own real-time ends (a bank transfer's account, a card challenge): beyond any run (real ms; setTimeout's limit is 24.8 days). */
const BEYOND_ANY_RUN_MS = 7 * 86_400_000;

export async function startSimPartner(seed: number): Promise<SimPartner> {
  const timing = { approveAfterMs: APPROVE_AFTER_MS, lateCallbackMs: 5 * APPROVE_AFTER_MS, lateSuccessMs: LATE_SUCCESS_MS, latePayoutSuccessMs: LATE_SUCCESS_MS };
  // Its transaction ids from the seed (exact replay, issue 44), in the order it pays.
  const ids = new Rng(seed).fork('partner-transaction-ids');
  const fake = await startFakePartner({ ...timing, transactionIds: () => String(ids.int(100_000_000, 999_999_999)) });
  // The aggregator's ids: a counter from a seeded start (unique: a refund names its charge by id).
  let nextAggregatorId = new Rng(seed).fork('aggregator-transaction-ids').int(1_000_000, 8_000_000);
  const aggregator = await startFakeAggregator({
    ...timing,
    slowMs: 1_500,
    bankTransferExpiryMs: BEYOND_ANY_RUN_MS,
    challengeExpiryMs: BEYOND_ANY_RUN_MS,
    transactionIds: () => nextAggregatorId++,
  });
  const aggregatorRail = new AggregatorRail(aggregator.config({ timeoutMs: 1_000 }));
  const cards = new AggregatorCards(aggregator.config({ timeoutMs: 1_000 }));
  let adapter: MomoPartnerRail | undefined;
  let partnerOf: ((referenceId: string) => Promise<PartnerName>) | undefined;
  let behaviour: PartnerBehaviour = 'normal';
  const parties = new Map<string, string>();
  const late = new Map<string, { partner: PartnerName; resource: RailResource }>();
  /** Real time by which each reference's scheduled answer (final status, callbacks) has been given. */
  const due = new Map<string, number>();
  // A wallet's number or a bank account (`<bank code>:<account>`) plays the behaviour by its last four digits, at either partner.
  const played = (partner: PartnerName, resource: RailResource, request: RailRequest): RailRequest => {
    if (resource === 'refund') return request;
    let partyId = parties.get(request.referenceId);
    if (partyId === undefined) {
      const rewritable = request.party.partyIdType === 'MSISDN' || request.party.partyIdType === 'BANK_ACCOUNT';
      partyId = behaviour === 'normal' || !rewritable ? request.party.partyId : request.party.partyId.slice(0, -4) + SUFFIX[behaviour];
      parties.set(request.referenceId, partyId);
      if (behaviour === 'late' && rewritable) late.set(request.referenceId, { partner, resource });
    }
    return { ...request, party: { ...request.party, partyId } };
  };
  const dueAfter = (referenceId: string, last: number) => {
    if (last > 0 && !due.has(referenceId)) due.set(referenceId, realNow() + last + CALLBACK_MARGIN_MS);
  };
  const submitted = (resource: RailResource, request: RailRequest) => {
    // A refund plays what the fake kept it with (its request-to-pay's payer chose it); one refused kept nothing and owes nothing.
    const chosen = resource === 'refund' ? fake.transaction('refund', request.referenceId)?.behaviour : behaviourOf(request.party.partyId);
    if (chosen === undefined) return;
    const ending = endingOf(chosen, timing, productOfResource(resource));
    dueAfter(request.referenceId, Math.max(ending.final ? ending.finalAfterMs : 0, ...ending.callbackDelaysMs));
  };
  // The aggregator keeps what each reference plays (the party's ending, a card's, a refund's charge's payer): its ending from there.
  const aggregatorSubmitted = (resource: RailResource, referenceId: string) => {
    const kept = aggregator.transaction(resource, referenceId);
    if (!kept || kept.status !== 'pending') return;
    const ending = aggregatorEndingOf(kept.behaviour, timing, resource);
    dueAfter(referenceId, Math.max(ending.final ? ending.finalAfterMs : 0, ...ending.webhookDelaysMs));
  };
  const down = new Set<PartnerName>();
  const reach = (partner: PartnerName, what: string) => {
    if (down.has(partner)) throw new RailUnavailable(`${what}: connect ECONNREFUSED (the simulation's partner_down: ${partner})`, undefined, true);
  };
  const connected = () => {
    if (!adapter) throw new Error('the simulation partner is not connected to the live listener yet');
    return adapter;
  };
  const momoRail: PartnerRail = {
    async submit(resource, request) {
      reach('momo', `submit ${resource}`);
      const sent = played('momo', resource, request);
      try {
        return await connected().submit(resource, sent);
      } finally {
        submitted(resource, sent);
      }
    },
    status: async (resource, ref) => {
      reach('momo', `status ${resource}`);
      return connected().status(resource, ref);
    },
  };
  const aggregatorPartner: PartnerRail = {
    async submit(resource, request) {
      reach('aggregator', `submit ${resource}`);
      const sent = played('aggregator', resource, request);
      try {
        return await aggregatorRail.submit(resource, sent);
      } finally {
        aggregatorSubmitted(resource, sent.referenceId);
      }
    },
    status: async (resource, ref) => {
      reach('aggregator', `status ${resource}`);
      return aggregatorRail.status(resource, ref);
    },
  };
  const routed = new RoutedRail({ momo: momoRail, aggregator: aggregatorPartner }, (referenceId) => {
    if (!partnerOf) throw new Error('the simulation partner is not connected to the engine\'s database yet');
    return partnerOf(referenceId);
  });
  return {
    fake,
    aggregator,
    cards,
    rail: routed,
    connect(liveUrl, callbackSecret, referencePartner) {
      adapter = new MomoPartnerRail(fake.partnerConfig({ callbackBaseUrl: liveUrl, callbackSecret, timeoutMs: 1_000 }));
      aggregator.setWebhookUrl(`${liveUrl}${AGGREGATOR_WEBHOOK_ROUTE}`);
      partnerOf = referencePartner;
    },
    cardSubmitted: (referenceId) => aggregatorSubmitted('collection', referenceId),
    answerDue: (referenceId, afterMs) => due.set(referenceId, Math.max(due.get(referenceId) ?? 0, realNow() + afterMs + CALLBACK_MARGIN_MS)),
    settle(product, referenceId, final) {
      if (fake.settle(product, referenceId, final)) return true;
      const code = final.status === 'FAILED' ? (Object.hasOwn(AGGREGATOR_ERRORS, final.reason) ? final.reason : final.reason === 'NOT_ENOUGH_FUNDS' ? 'INSUFFICIENT_FUNDS' : 'CUSTOMER_DECLINED') : undefined;
      const settled = aggregator.settle(product, referenceId, code === undefined ? { status: 'successful' } : { status: 'failed', code });
      if (settled) due.set(referenceId, realNow() + CALLBACK_MARGIN_MS);
      return settled;
    },
    fault(kind, partner, on) {
      if (kind === 'down') {
        if (on) down.add(partner);
        else down.delete(partner);
      } else if (partner === 'momo') fake.setDeclining(on);
      else aggregator.setDeclining(on);
    },
    setBehaviour(next) {
      behaviour = next;
    },
    behaviour: () => behaviour,
    releaseLate() {
      let released = 0;
      // A reference the fake does not keep yet (its submission still to come) waits for the next jump.
      for (const [referenceId, { partner, resource }] of late) {
        const settled = partner === 'momo' ? fake.settle(resource, referenceId, { status: 'SUCCESSFUL' }) : aggregator.transaction(resource, referenceId)?.status === 'pending' && aggregator.settle(resource, referenceId, { status: 'successful' });
        if (!settled) continue;
        late.delete(referenceId);
        released++;
        due.set(referenceId, realNow() + CALLBACK_MARGIN_MS);
      }
      return released;
    },
    busy() {
      const now = realNow();
      const lines: string[] = [];
      for (const [referenceId, at] of due) {
        if (at <= now) due.delete(referenceId);
        else lines.push(`partner reference ${referenceId} answers within ${Math.ceil(at - now)} ms`);
      }
      return lines;
    },
    async statement(day, breaks) {
      const statement = fake.statement('collection', day);
      const lines = statement.lines.map((line, i) => {
        if (i >= breaks) return line;
        const minor = parseMomoAmount(line.amount, line.currency);
        return minor === undefined ? line : { ...line, amount: formatMomoAmount(minor + 1, line.currency) };
      });
      return statementToCsv({ ...statement, lines });
    },
    async close() {
      await adapter?.close();
      await aggregatorRail.close();
      await cards.close();
      await fake.close();
      await aggregator.close();
    },
  };
}
