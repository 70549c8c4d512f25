import { BOUNDED_DB_RETRIES_PATCH } from '../src/domain/charge-attention';
import { INDETERMINATE_ATTENTION_PATCH, PARTNER_DECIDES_LIVE_CHARGE_PATCH } from '../src/domain/charge-resolution';
import { NO_LIVE_SIMULATOR_PATCH, REFUSE_DRAFT_INPUT_PATCH, TRUST_ONLY_THE_DATABASE_PATCH } from '../src/domain/charge-start';
import { SANDBOX_ADVANCE_PATCH } from './charge-timers';
import { AUDIT_WITH_CHANGE_PATCH, OPERATOR_AUDIT_PATCH } from './operator-audit';
import { SETTLEMENT_RUN_FAILS_ON_GIVE_UP_PATCH } from './settlement-run';
import { LOCAL_FIRST_ATTEMPT_PATCH, RESUME_AFTER_CLOSED_RUN_PATCH } from './webhook-delivery';
import { LIVE_PARTNER_RAIL_PATCH, LIVE_REFUND_RAIL_PATCH, PARTNER_WORD_PATCH } from '../src/domain/live-rail';
import { HOSTED_CHECKOUT_PATCH } from '../src/domain/hosted-checkout';
import { LIVE_CARD_CHARGE_PATCH } from '../src/domain/live-card';
import { REVIEW_ENDS_SETTLEMENT_WAIT_PATCH } from './settlement-settled-late';
import { RETURN_CALLBACK_WAKES_PATCH, RETURN_ENDED_KNOWN_PATCH, REVIEW_FLAG_CHECKED_PATCH } from './payment-review';
import { FAILED_BATCH_WAIT_CONTINUES_PATCH, SETTLED_LATE_CHECKED_PATCH, SETTLEMENT_RETRY_ASKS_PARTNER_PATCH, SETTLEMENT_WAIT_FOLLOWS_CURRENT_BUILD_PATCH } from './settlement-retry';
import { REVIEW_WAIT_CONTINUES_PATCH } from '../src/domain/review-wait';
import { LIVE_ADVANCE_IGNORED_PATCH } from './payout-timers';
import { REVIEW_DECISION_REFUSED_PATCH } from '../src/domain/payout-review';
import { HANDLERS_FINISH_BEFORE_CLOSE_PATCH } from './handlers-finished';
import { RAIL_PATCHES_AT_START_PATCH } from './charge-patches';
import { PATCHES_AT_START_PATCH } from './patches-at-start';
import { RAIL_FAILOVER_PATCH } from '../src/domain/rail-failover';
import { RAIL_TIMERS_FROM_CREATE_PATCH } from '../src/domain/sandbox-outcome';
import { CHARGE_WAIT_CONTINUES_PATCH, PARTNER_WAIT_CONTINUES_PATCH, SUCCESS_MUST_MATCH_PATCH, UNKNOWN_FLAG_NEEDS_EARLIER_ACK_PATCH } from '../src/domain/partner-wait';

/**
 * Every `patched()` id in the workflow code (test/unit/patch-registry.test.ts fails when one is
 * missing). `npm run replay` counts the open runs that carry each (the TemporalChangeVersion search
 * attribute the SDK sets with the marker): a patch's old branch may go only when no open run was
 * started before it (docs/testing.md, "Upgrading workflow code").
 */
export const PATCH_IDS: readonly string[] = [
  REFUSE_DRAFT_INPUT_PATCH,
  TRUST_ONLY_THE_DATABASE_PATCH,
  NO_LIVE_SIMULATOR_PATCH,
  BOUNDED_DB_RETRIES_PATCH,
  SANDBOX_ADVANCE_PATCH,
  OPERATOR_AUDIT_PATCH,
  INDETERMINATE_ATTENTION_PATCH,
  SETTLEMENT_RUN_FAILS_ON_GIVE_UP_PATCH,
  LOCAL_FIRST_ATTEMPT_PATCH,
  LIVE_PARTNER_RAIL_PATCH,
  HOSTED_CHECKOUT_PATCH,
  PARTNER_WORD_PATCH,
  REVIEW_ENDS_SETTLEMENT_WAIT_PATCH,
  LIVE_ADVANCE_IGNORED_PATCH,
  HANDLERS_FINISH_BEFORE_CLOSE_PATCH,
  AUDIT_WITH_CHANGE_PATCH,
  SETTLEMENT_WAIT_FOLLOWS_CURRENT_BUILD_PATCH,
  SETTLED_LATE_CHECKED_PATCH,
  REVIEW_FLAG_CHECKED_PATCH,
  RESUME_AFTER_CLOSED_RUN_PATCH,
  RAIL_PATCHES_AT_START_PATCH,
  PATCHES_AT_START_PATCH,
  RAIL_TIMERS_FROM_CREATE_PATCH,
  PARTNER_DECIDES_LIVE_CHARGE_PATCH,
  RETURN_CALLBACK_WAKES_PATCH,
  SETTLEMENT_RETRY_ASKS_PARTNER_PATCH,
  RETURN_ENDED_KNOWN_PATCH,
  PARTNER_WAIT_CONTINUES_PATCH,
  CHARGE_WAIT_CONTINUES_PATCH,
  REVIEW_WAIT_CONTINUES_PATCH,
  FAILED_BATCH_WAIT_CONTINUES_PATCH,
  UNKNOWN_FLAG_NEEDS_EARLIER_ACK_PATCH,
  REVIEW_DECISION_REFUSED_PATCH,
  SUCCESS_MUST_MATCH_PATCH,
  LIVE_REFUND_RAIL_PATCH,
  LIVE_CARD_CHARGE_PATCH,
  RAIL_FAILOVER_PATCH,
];
