import type { StepHandler, StepKind } from '../types';
import { liveChargeStep, repeatRequestStep, sandboxChargeStep } from './charges';
import { burstStep } from './burst';
import { cutDbConnectionsStep, failActivityStep, receiverFailureStep, restartWorkerStep } from './faults';
import { createEndpointStep, createMerchantStep, disableEndpointStep, replayDeliveryStep, rotateEndpointStep } from './merchants-endpoints';
import { operatorActionStep } from './operator';
import { partnerBehaviourStep, partnerStatementStep } from './partner';
import { partnerFaultStep } from './partner-faults';
import { payoutStep, reviewPayoutStep } from './payouts';
import { disputeEvidenceStep, disputeStep, refundStep } from './refunds-disputes';
import { settlementRunStep } from './settlement';
import { timeJumpStep } from './time';
import { settlementAccountChangeStep } from './account-change';
import { terminateRunStep } from './terminate';
import { lateReturnRefusedStep, partnerPaysLateStep, resetRunStep, restartSettlementStep, settlementRetryLateStep, unansweredPayoutJumpStep } from './money-paths';

/** The handler of every kind of step (src/simulation/types.ts StepKind). */
export const STEP_HANDLERS: Record<StepKind, StepHandler> = {
  create_merchant: createMerchantStep,
  create_endpoint: createEndpointStep,
  rotate_endpoint_secret: rotateEndpointStep,
  disable_endpoint: disableEndpointStep,
  replay_delivery: replayDeliveryStep,
  sandbox_charge: sandboxChargeStep,
  live_charge: liveChargeStep,
  repeat_request: repeatRequestStep,
  payout: payoutStep,
  review_payout: reviewPayoutStep,
  refund: refundStep,
  dispute: disputeStep,
  dispute_evidence: disputeEvidenceStep,
  settlement_run: settlementRunStep,
  operator_action: operatorActionStep,
  partner_behaviour: partnerBehaviourStep,
  partner_statement: partnerStatementStep,
  receiver_failure: receiverFailureStep,
  restart_worker: restartWorkerStep,
  cut_db_connections: cutDbConnectionsStep,
  fail_activity: failActivityStep,
  time_jump: timeJumpStep,
  settlement_account_change: settlementAccountChangeStep,
  terminate_run: terminateRunStep,
  restart_settlement: restartSettlementStep,
  reset_run: resetRunStep,
  late_return_refused: lateReturnRefusedStep,
  settlement_retry_late: settlementRetryLateStep,
  unanswered_payout_jump: unansweredPayoutJumpStep,
  burst: burstStep,
  partner_pays_late: partnerPaysLateStep,
  partner_down: partnerFaultStep,
  partner_declining: partnerFaultStep,
};
