import { CHANNELS, CHARGE_STATUSES } from '../domain/charge-status';
import { DISPUTE_STATUSES } from '../domain/dispute';
import { PAYOUT_CHANNELS, PAYOUT_STATUSES } from '../domain/payout';
import { REFUND_STATUSES } from '../domain/refund';
import { SETTLEMENT_STATUSES } from '../domain/settlement';
import { defineListFilters } from '../services/list-filters';

/**
 * The filters of each payment list (INTERFACE.md "Objects"), shared by the API's list routes, the
 * OpenAPI document and the merchant portal's Payments page: one parser, one SQL clause.
 * `reference` is the merchant's (`your_reference`); `charge` matches a refund's or dispute's charge.
 */
export const CHARGE_LIST = defineListFilters({ kind: 'charge', statuses: CHARGE_STATUSES, channels: CHANNELS, referenceColumn: 'your_reference' });
export const PAYOUT_LIST = defineListFilters({ kind: 'payout', statuses: PAYOUT_STATUSES, channels: PAYOUT_CHANNELS, referenceColumn: 'your_reference' });
export const REFUND_LIST = defineListFilters({ kind: 'refund', statuses: REFUND_STATUSES, chargeColumn: 'charge_id' });
export const DISPUTE_LIST = defineListFilters({ kind: 'dispute', statuses: DISPUTE_STATUSES, chargeColumn: 'charge_id' });
export const SETTLEMENT_LIST = defineListFilters({ kind: 'settlement', statuses: SETTLEMENT_STATUSES });
