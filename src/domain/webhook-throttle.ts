/**
 * Issue 49, the per-endpoint throttle: `max_per_second` spaces an endpoint's sends by
 * 1 / max_per_second (one shared schedule of slots, every process reserving from it), and
 * `max_in_flight` caps the sends under way to it at once. A send that has to wait is not a failed
 * attempt: the attempt comes back when its slot is due (activities/webhook-throttle.ts).
 */
export const MAX_PER_SECOND_LIMIT = 1000;
export const MAX_IN_FLIGHT_LIMIT = 100;

export interface EndpointThrottle {
  maxPerSecond: number | null;
  maxInFlight: number | null;
}

export const throttled = (t: EndpointThrottle): boolean => t.maxPerSecond !== null || t.maxInFlight !== null;

/**
 * A slot due within this long is waited for in the attempt itself (heartbeating); a later one ends
 * the attempt's execution as "come back then", so no worker slot is held while it waits.
 */
export const WAIT_IN_ATTEMPT_MS = 1_000;

/**
 * How long before its slot a held-back attempt comes back: an activity retry lands late by a server
 * round trip and a worker's queue (hundreds of ms on a busy machine), so it comes back early and
 * waits the rest in the attempt, and the send leaves on its slot rather than bunched with the next.
 */
export const COME_BACK_EARLY_MS = 500;

/**
 * How many times the last word before a send (the sliding second at the instant of the POST) is
 * waited for in the attempt before the attempt ends as "come back then": each wait is at most
 * WAIT_IN_ATTEMPT_MS, and a send that keeps finding its second full gives its worker slot back.
 */
export const LET_GO_WAITS_MAX = 3;

/** When every in-flight place is taken: look again after about this long (±20 %). */
export const IN_FLIGHT_RECHECK_MS = 250;

/** A lease outlives its send by this much at most (a worker that died mid-send frees its place then). */
export const LEASE_MARGIN_MS = 15_000;
