import type { Invariant } from '../types';
import { balancesMatch } from './balances';
import { oneResourcePerKey, payoutsNeverOverdraw, refundsWithinCharge } from './bursts';
import { deliveriesRecorded } from './deliveries';
import { eventSequencesGapless } from './event-sequences';
import { idempotentReplays } from './idempotent-replays';
import { ledgerBalanced } from './ledger';
import { openPaymentsWatched } from './open-payments';
import { partnerBooksAgree } from './partner-books';
import { modelAgrees } from './reference-model';
import { transitionsAllowed } from './transitions';

/** Every invariant the simulation checks after each step (docs/simulation.md, "Invariants"), in this order. */
export const ALL_INVARIANTS: Invariant[] = [
  ledgerBalanced,
  balancesMatch,
  eventSequencesGapless,
  transitionsAllowed,
  deliveriesRecorded,
  openPaymentsWatched,
  idempotentReplays,
  partnerBooksAgree,
  refundsWithinCharge,
  oneResourcePerKey,
  payoutsNeverOverdraw,
  modelAgrees,
];

export { modelAgrees, balancesMatch, deliveriesRecorded, oneResourcePerKey, payoutsNeverOverdraw, refundsWithinCharge, eventSequencesGapless, idempotentReplays, ledgerBalanced, openPaymentsWatched, partnerBooksAgree, transitionsAllowed };
