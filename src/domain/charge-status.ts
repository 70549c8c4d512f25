export const CHANNELS = ['mobile_money', 'bank', 'card'] as const;
export type Channel = (typeof CHANNELS)[number];

export const CHARGE_STATUSES = ['pending', 'awaiting_action', 'succeeded', 'failed', 'expired', 'reversed'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

/** Allowed transitions (SPEC 3). Everything else is refused. */
const TRANSITIONS: Record<ChargeStatus, readonly ChargeStatus[]> = {
  pending: ['succeeded', 'failed', 'expired'],
  awaiting_action: ['succeeded', 'failed', 'expired'],
  succeeded: ['reversed'],
  failed: [],
  expired: [],
  reversed: [],
};

export function canTransition(from: ChargeStatus, to: ChargeStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * The one way out of `expired` or `failed` (issue 29), never taken by the normal machine above: an
 * operator settles late money (the partner said SUCCESSFUL after we ended the charge) with `credit`,
 * and the charge becomes succeeded late (src/persistence/partner/late-answer-store.ts, through the payment
 * review's audited `settleLateAnswer` update). Nothing else may use it.
 */
export function canSettleLate(from: ChargeStatus, to: ChargeStatus): boolean {
  return (from === 'expired' || from === 'failed') && to === 'succeeded';
}

export type ActionType = 'prompt' | '3ds_redirect' | 'hosted_checkout';

export interface ChargeAction {
  type: ActionType;
  url?: string;
}

/** Initial status and customer action for a new charge on a channel (SPEC 3, first rows). */
export function initialState(channel: Channel): { status: ChargeStatus; action: ChargeAction | null } {
  if (channel === 'mobile_money') return { status: 'awaiting_action', action: { type: 'prompt' } };
  // Card and bank in the simulator: pending, no redirect.
  return { status: 'pending', action: null };
}

export type ChargeEventType =
  | 'transaction.created'
  | 'transaction.succeeded'
  | 'transaction.failed'
  | 'transaction.expired'
  | 'transaction.reversed';

export function eventTypeForStatus(status: ChargeStatus): ChargeEventType {
  switch (status) {
    case 'succeeded':
      return 'transaction.succeeded';
    case 'failed':
      return 'transaction.failed';
    case 'expired':
      return 'transaction.expired';
    case 'reversed':
      return 'transaction.reversed';
    default:
      return 'transaction.created';
  }
}
