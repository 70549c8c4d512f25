import { startFakePartner, type FakePartner } from '../rail/fake-partner';
import { MomoPartnerRail } from '../rail/momo-adapter';
import { formatMomoAmount, parseMomoAmount } from '../rail/momo-amount';
import { statementToCsv } from '../rail/momo-statement';
import type { PartnerRail, RailRequest } from '../rail/partner-rail';

/**
 * The simulation's partner: the fake partner (src/rail/fake-partner) over real HTTP on 127.0.0.1 and
 * the real MoMo adapter in front of it, its callbacks to the engine's live listener.
 *
 * The fake chooses how it answers by the party's last four digits (fake-partner/behaviours.ts);
 * `setBehaviour` makes the NEXT references submitted play a behaviour whatever the plan's phone
 * number: at a reference's first submission the party's last four digits are replaced, at the rail's
 * edge, by the behaviour's suffix, and every later submission of that reference gets the same party.
 * `normal` leaves the party as the plan drew it. `late` is `0012` (SUCCESSFUL only after LATE_SUCCESS_MS
 * of real time, past any deadline a time jump has passed), `twice` is `0005` (two callbacks), `never`
 * is `0004` (PENDING forever, no callback). The fake's timers are real time (they do not follow a
 * time jump).
 */

export type PartnerBehaviour = 'normal' | 'late' | 'twice' | 'never';

const SUFFIX: Record<Exclude<PartnerBehaviour, 'normal'>, string> = { late: '0012', twice: '0005', never: '0004' };

/** Real milliseconds after acceptance before a `late` payment becomes SUCCESSFUL. */
export const LATE_SUCCESS_MS = 3_000;

export interface SimPartner {
  fake: FakePartner;
  /** The rail the worker and the API use (forwards to the adapter once `connect` ran). */
  rail: PartnerRail;
  /** Points the adapter's callbacks at the live listener. */
  connect(liveUrl: string, callbackSecret: string): void;
  setBehaviour(behaviour: PartnerBehaviour): void;
  /** The collection statement of a UTC day as CSV (what `reconcile import` reads), its first `breaks` lines one minor unit more. */
  statement(day: string, breaks: number): Promise<string>;
  close(): Promise<void>;
}

export async function startSimPartner(): Promise<SimPartner> {
  const fake = await startFakePartner({ approveAfterMs: 300, lateSuccessMs: LATE_SUCCESS_MS, latePayoutSuccessMs: LATE_SUCCESS_MS });
  let adapter: MomoPartnerRail | undefined;
  let behaviour: PartnerBehaviour = 'normal';
  const parties = new Map<string, string>();
  const played = (request: RailRequest): RailRequest => {
    let partyId = parties.get(request.referenceId);
    if (partyId === undefined) {
      partyId = behaviour === 'normal' || request.party.partyIdType !== 'MSISDN' ? request.party.partyId : request.party.partyId.slice(0, -4) + SUFFIX[behaviour];
      parties.set(request.referenceId, partyId);
    }
    return { ...request, party: { ...request.party, partyId } };
  };
  const connected = () => {
    if (!adapter) throw new Error('the simulation partner is not connected to the live listener yet');
    return adapter;
  };
  return {
    fake,
    rail: { submit: (product, request) => connected().submit(product, played(request)), status: (product, ref) => connected().status(product, ref) },
    connect(liveUrl, callbackSecret) {
      adapter = new MomoPartnerRail(fake.partnerConfig({ callbackBaseUrl: liveUrl, callbackSecret, timeoutMs: 1_000 }));
    },
    setBehaviour(next) {
      behaviour = next;
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
