/**
 * What the fake partner plays, chosen by the last four digits of the party's `partyId` (the payer of
 * a request-to-pay, the payee of a transfer). The same table is in docs/partner-rail.md.
 *
 * | partyId ends in | behaviour |
 * |---|---|
 * | anything else | success: 202, PENDING, SUCCESSFUL after approveAfterMs, then one callback |
 * | `0001` | refusal after acceptance: 202, then FAILED `NOT_ENOUGH_FUNDS`, one callback |
 * | `0002` | refusal at once: 404 `PAYER_NOT_FOUND` (transfer: `PAYEE_NOT_FOUND`); nothing kept |
 * | `0003` | 202, then FAILED `PAYEE_NOT_ALLOWED_TO_RECEIVE`, one callback |
 * | `0004` | timeout without a callback: 202, PENDING forever, no callback |
 * | `0005` | duplicate callback: SUCCESSFUL, the callback sent twice |
 * | `0006` | a 500 on the first submission of the reference (nothing kept), then as success |
 * | `0007` | slow answer: the reference is kept at once, the 202 comes only after slowMs; then as success |
 * | `0008` | success without any callback (found only by polling) |
 * | `0009` | late callback: SUCCESSFUL at approveAfterMs, the callback only at lateCallbackMs (5 × approveAfterMs) |
 * | `0010` | success; the day's statement lists the payment twice |
 * | `0011` | success; the statement's amount is one minor unit more than ours |
 * | `0012` | SUCCESSFUL only after our deadline: at lateSuccessMs (collection) or latePayoutSuccessMs (disbursement, 10 min), one callback |
 * | `0013` | success; a second submission of the reference answers 400 `NOT_ALLOWED` (checked before de-duplication) |
 * | `0014` | no answer (PENDING forever, as `0004`); a second submission answers 400 `NOT_ALLOWED` (as `0013`) |
 * | `0015` | SUCCESSFUL for one minor unit less than ours (the status, its callback and the statement line) |
 *
 * Every submission of a reference the fake already keeps answers 409 `RESOURCE_ALREADY_EXIST` and
 * changes nothing, whatever its party.
 *
 * Refunds (issue 45) name no party: a refund plays what its ORIGINAL request-to-pay's payer chooses.
 * A payer ending `01NN` makes the request-to-pay itself plain success, and each refund of it plays
 * the behaviour of `00NN` above (refundBehaviourOf: `0101` FAILED `NOT_ENOUGH_FUNDS` later, `0102`
 * refused at once with 404 `PAYEE_NOT_FOUND`, `0112` late with latePayoutSuccessMs, …); every other
 * payer's refunds succeed.
 */
export type Behaviour =
  | 'success'
  | 'refuse_later'
  | 'refuse_now'
  | 'not_allowed_to_receive'
  | 'no_answer'
  | 'double_callback'
  | 'error_once'
  | 'slow'
  | 'poll_only'
  | 'late_callback'
  | 'statement_twice'
  | 'statement_amount_plus_one'
  | 'late_success'
  | 'duplicate_refused'
  | 'pending_duplicate_refused'
  | 'success_amount_minus_one';

export const BEHAVIOUR_BY_SUFFIX: Readonly<Record<string, Behaviour>> = {
  '0001': 'refuse_later',
  '0002': 'refuse_now',
  '0003': 'not_allowed_to_receive',
  '0004': 'no_answer',
  '0005': 'double_callback',
  '0006': 'error_once',
  '0007': 'slow',
  '0008': 'poll_only',
  '0009': 'late_callback',
  '0010': 'statement_twice',
  '0011': 'statement_amount_plus_one',
  '0012': 'late_success',
  '0013': 'duplicate_refused',
  '0014': 'pending_duplicate_refused',
  '0015': 'success_amount_minus_one',
};

export function behaviourOf(partyId: string): Behaviour {
  const suffix = partyId.slice(-4);
  return Object.hasOwn(BEHAVIOUR_BY_SUFFIX, suffix) ? BEHAVIOUR_BY_SUFFIX[suffix] : 'success';
}

/** A request-to-pay's payer ending `01NN` chooses what its refunds play: the behaviour of `00NN`. */
export const REFUND_BEHAVIOUR_PREFIX = '01';

/**
 * What a refund plays, chosen by the payer of the request-to-pay it refunds (the refund's body names
 * no party): `…01NN` plays `00NN`'s behaviour (BEHAVIOUR_BY_SUFFIX), anything else plain success.
 * Every behaviour applies to a refund (docs/partner-rail.md, "Refunds").
 */
export function refundBehaviourOf(originalPayerPartyId: string): Behaviour {
  const suffix = originalPayerPartyId.slice(-4);
  if (!suffix.startsWith(REFUND_BEHAVIOUR_PREFIX)) return 'success';
  const played = `00${suffix.slice(2)}`;
  return Object.hasOwn(BEHAVIOUR_BY_SUFFIX, played) ? BEHAVIOUR_BY_SUFFIX[played] : 'success';
}

/** How a kept transaction ends: its final status (none: PENDING forever) and its callbacks. */
export interface Ending {
  final: { status: 'SUCCESSFUL' } | { status: 'FAILED'; reason: string } | null;
  /** When the final status comes, after acceptance. */
  finalAfterMs: number;
  /** Callbacks to send, each this long after acceptance (empty: none). */
  callbackDelaysMs: number[];
}

export interface Timing {
  approveAfterMs: number;
  lateCallbackMs: number;
  /** `0012` request-to-pay: SUCCESSFUL this long after acceptance (after the charge's expiry). */
  lateSuccessMs: number;
  /** `0012` transfer (and `0112` refund): SUCCESSFUL this long after acceptance (default 10 minutes). */
  latePayoutSuccessMs: number;
}

/** Default `lateSuccessMs`: longer than any charge expiry the tests use (and the API's default). */
export const DEFAULT_LATE_SUCCESS_MS = 2 * 3_600_000;
/** Default `latePayoutSuccessMs`: a payout that has waited 10 minutes. */
export const DEFAULT_LATE_PAYOUT_SUCCESS_MS = 10 * 60_000;

/** The gap between the two callbacks of `double_callback`. */
export const SECOND_CALLBACK_GAP_MS = 50;

/** How a transaction of `product` that plays `behaviour` ends (a refund's product is `disbursement`: its `0112` takes latePayoutSuccessMs). */
export function endingOf(behaviour: Behaviour, timing: Timing, product: 'collection' | 'disbursement' = 'collection'): Ending {
  const { approveAfterMs: at } = timing;
  switch (behaviour) {
    case 'refuse_later':
      return { final: { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' }, finalAfterMs: at, callbackDelaysMs: [at] };
    case 'not_allowed_to_receive':
      return { final: { status: 'FAILED', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE' }, finalAfterMs: at, callbackDelaysMs: [at] };
    case 'no_answer':
    case 'pending_duplicate_refused':
      return { final: null, finalAfterMs: at, callbackDelaysMs: [] };
    case 'double_callback':
      return { final: { status: 'SUCCESSFUL' }, finalAfterMs: at, callbackDelaysMs: [at, at + SECOND_CALLBACK_GAP_MS] };
    case 'poll_only':
      return { final: { status: 'SUCCESSFUL' }, finalAfterMs: at, callbackDelaysMs: [] };
    case 'late_callback':
      return { final: { status: 'SUCCESSFUL' }, finalAfterMs: at, callbackDelaysMs: [Math.max(at, timing.lateCallbackMs)] };
    case 'late_success': {
      const late = product === 'collection' ? timing.lateSuccessMs : timing.latePayoutSuccessMs;
      return { final: { status: 'SUCCESSFUL' }, finalAfterMs: late, callbackDelaysMs: [late] };
    }
    default:
      // success, error_once (on its retry), slow, statement_*, duplicate_refused, success_amount_minus_one, and refuse_now (never kept, never here)
      return { final: { status: 'SUCCESSFUL' }, finalAfterMs: at, callbackDelaysMs: [at] };
  }
}
