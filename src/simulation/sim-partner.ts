import { Rng } from '../chaos/random';
import { behaviourOf, startFakePartner, type FakePartner } from '../rail/fake-partner';
import { endingOf } from '../rail/fake-partner/behaviours';
import { MomoPartnerRail } from '../rail/momo-adapter';
import { formatMomoAmount, parseMomoAmount } from '../rail/momo-amount';
import { statementToCsv } from '../rail/momo-statement';
import { productOfResource, type PartnerRail, type RailResource, type RailRequest } from '../rail/partner-rail';
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
  /** Points the adapter's callbacks at the live listener. */
  connect(liveUrl: string, callbackSecret: string): void;
  setBehaviour(behaviour: PartnerBehaviour): void;
  /** The behaviour the next references get. */
  behaviour(): PartnerBehaviour;
  /** Answers every `late` reference held so far (SUCCESSFUL, one callback); how many. */
  releaseLate(): number;
  /** The references whose scheduled answer is still to come, one line each. */
  busy(): string[];
  /** The collection statement of a UTC day as CSV (what `reconcile import` reads), its first `breaks` lines one minor unit more. */
  statement(day: string, breaks: number): Promise<string>;
  close(): Promise<void>;
}

export async function startSimPartner(seed: number): Promise<SimPartner> {
  const timing = { approveAfterMs: APPROVE_AFTER_MS, lateCallbackMs: 5 * APPROVE_AFTER_MS, lateSuccessMs: LATE_SUCCESS_MS, latePayoutSuccessMs: LATE_SUCCESS_MS };
  // Its transaction ids from the seed (exact replay, issue 44), in the order it pays.
  const ids = new Rng(seed).fork('partner-transaction-ids');
  const fake = await startFakePartner({ ...timing, transactionIds: () => String(ids.int(100_000_000, 999_999_999)) });
  let adapter: MomoPartnerRail | undefined;
  let behaviour: PartnerBehaviour = 'normal';
  const parties = new Map<string, string>();
  const late = new Map<string, RailResource>();
  /** Real time by which each reference's scheduled answer (final status, callbacks) has been given. */
  const due = new Map<string, number>();
  const played = (resource: RailResource, request: RailRequest): RailRequest => {
    if (resource === 'refund') return request;
    let partyId = parties.get(request.referenceId);
    if (partyId === undefined) {
      partyId = behaviour === 'normal' || request.party.partyIdType !== 'MSISDN' ? request.party.partyId : request.party.partyId.slice(0, -4) + SUFFIX[behaviour];
      parties.set(request.referenceId, partyId);
      if (behaviour === 'late') late.set(request.referenceId, resource);
    }
    return { ...request, party: { ...request.party, partyId } };
  };
  const submitted = (resource: RailResource, request: RailRequest) => {
    // A refund plays what the fake kept it with (its request-to-pay's payer chose it); one refused kept nothing and owes nothing.
    const chosen = resource === 'refund' ? fake.transaction('refund', request.referenceId)?.behaviour : behaviourOf(request.party.partyId);
    if (chosen === undefined) return;
    const ending = endingOf(chosen, timing, productOfResource(resource));
    const last = Math.max(ending.final ? ending.finalAfterMs : 0, ...ending.callbackDelaysMs);
    if (last > 0 && !due.has(request.referenceId)) due.set(request.referenceId, realNow() + last + CALLBACK_MARGIN_MS);
  };
  const connected = () => {
    if (!adapter) throw new Error('the simulation partner is not connected to the live listener yet');
    return adapter;
  };
  return {
    fake,
    rail: {
      async submit(resource, request) {
        const sent = played(resource, request);
        try {
          return await connected().submit(resource, sent);
        } finally {
          submitted(resource, sent);
        }
      },
      status: (resource, ref) => connected().status(resource, ref),
    },
    connect(liveUrl, callbackSecret) {
      adapter = new MomoPartnerRail(fake.partnerConfig({ callbackBaseUrl: liveUrl, callbackSecret, timeoutMs: 1_000 }));
    },
    setBehaviour(next) {
      behaviour = next;
    },
    behaviour: () => behaviour,
    releaseLate() {
      let released = 0;
      // A reference the fake does not keep yet (its submission still to come) waits for the next jump.
      for (const [referenceId, resource] of late) {
        if (!fake.settle(resource, referenceId, { status: 'SUCCESSFUL' })) continue;
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
      await fake.close();
    },
  };
}
