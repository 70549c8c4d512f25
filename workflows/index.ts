// Workflow bundle entry: every workflow type the payments worker runs.
export { chargeWorkflow } from './charge';
export { chargeReversalWorkflow } from './charge-reversal';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { payoutWorkflow } from './payout';
export { refundWorkflow } from './refund';
export { disputeWorkflow } from './dispute';
export { settlementWorkflow } from './settlement';
export { settlementRunWorkflow } from './settlement-run';
export { notificationWorkflow } from './notification';
export { paymentReviewWorkflow } from './payment-review';
export { statementImportWorkflow } from './statement-import';
export { retentionWorkflow } from './retention';
export { webhookRecoveryWorkflow } from './webhook-recovery';
export { webhookFifoWorkflow } from './webhook-fifo';
