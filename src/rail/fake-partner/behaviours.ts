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
 *
 * Every submission of a reference the fake already keeps answers 409 `RESOURCE_ALREADY_EXIST` and
 * changes nothing, whatever its party.
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
  | 'late_callback';

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
};

export function behaviourOf(partyId: string): Behaviour {
  const suffix = partyId.slice(-4);
  return Object.hasOwn(BEHAVIOUR_BY_SUFFIX, suffix) ? BEHAVIOUR_BY_SUFFIX[suffix] : 'success';
}

/** How a kept transaction ends: its final status (none: PENDING forever) and its callbacks. */
export interface Ending {
  final: { status: 'SUCCESSFUL' } | { status: 'FAILED'; reason: string } | null;
  /** Callbacks to send, each this long after acceptance (empty: none). */
  callbackDelaysMs: number[];
}

export interface Timing {
  approveAfterMs: number;
  lateCallbackMs: number;
}

/** The gap between the two callbacks of `double_callback`. */
export const SECOND_CALLBACK_GAP_MS = 50;

export function endingOf(behaviour: Behaviour, timing: Timing): Ending {
  const { approveAfterMs: at } = timing;
  switch (behaviour) {
    case 'refuse_later':
      return { final: { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' }, callbackDelaysMs: [at] };
    case 'not_allowed_to_receive':
      return { final: { status: 'FAILED', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE' }, callbackDelaysMs: [at] };
    case 'no_answer':
      return { final: null, callbackDelaysMs: [] };
    case 'double_callback':
      return { final: { status: 'SUCCESSFUL' }, callbackDelaysMs: [at, at + SECOND_CALLBACK_GAP_MS] };
    case 'poll_only':
      return { final: { status: 'SUCCESSFUL' }, callbackDelaysMs: [] };
    case 'late_callback':
      return { final: { status: 'SUCCESSFUL' }, callbackDelaysMs: [Math.max(at, timing.lateCallbackMs)] };
    default:
      // success, error_once (on its retry), slow, and refuse_now (never kept, never here)
      return { final: { status: 'SUCCESSFUL' }, callbackDelaysMs: [at] };
  }
}
