import type { RailRoutes } from '../src/domain/rail-routes';
import type { Orm } from '../src/persistence/orm';
import { createChargeActivities } from './charges';
import { createPayoutActivities } from './payouts';
import { createRefundActivities } from './refunds';
import { createDisputeActivities } from './disputes';
import { createSettlementActivities } from './settlements';
import { createSettlementRunActivities } from './settlement-runs';
import { createOperatorAuditActivities } from './operator-audit';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';
import { createNotificationActivities } from './notifications';
import { loadNotificationConfig, type NotificationConfig } from '../src/notifications/notification-config';
import { createRailActivities } from './rail';
import { nonRetryableRail } from './rail-errors';
import { createPaymentReviewActivities } from './payment-review';
import type { PartnerRail } from '../src/rail/partner-rail';
import { createReconcileActivities, type StatementSource } from './reconcile';
import { createRetentionActivities } from './retention';
import { createWebhookRecoveryActivities } from './webhook-recovery';
import { createWebhookFifoActivities } from './webhook-fifo';
import type { RetentionPlan } from '../src/domain/retention';
import { retentionSettings } from '../src/runtime/retention-settings';

export interface ActivityDeps {
  orm: Orm;
  webhooks: Omit<WebhookActivityDeps, 'orm'>;
  /** Notification settings (src/notifications/notification-config.ts); absent: read from the environment. */
  notifications?: NotificationConfig;
  /**
   * The live partner rail (src/rail/momo-adapter.ts); absent: live rail steps fail and are retried (NeedsAttention).
   * Its RailMisconfigured and RailRequestInvalid become non-retryable failures (activities/rail-errors.ts).
   */
  rail?: PartnerRail;
  /** Where the statement import gets the partner's statements; absent: the partner of PARTNER_* (activities/reconcile.ts). */
  statements?: StatementSource;
  /** The retention job's windows, batch and pause (src/runtime/retention-settings.ts); absent: read from the environment. */
  retention?: RetentionPlan;
  /** Which live partner takes what (RAIL_ROUTES, issue 45): a live settlement batch goes to the partner of `bank` in its currency. Absent: the partner of the batch's reference (the mobile-money partner's, as before). */
  railRoutes?: RailRoutes;
}

/** Every activity the payments worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return { ...createChargeActivities(deps), ...createPayoutActivities({ orm: deps.orm }), ...createRefundActivities({ orm: deps.orm }), ...createDisputeActivities({ orm: deps.orm }), ...createSettlementActivities({ orm: deps.orm, secretBox: deps.webhooks.secretBox, liveRail: deps.rail ? 'partner' : 'none', ...(deps.railRoutes ? { railRoutes: deps.railRoutes } : {}) }), ...createSettlementRunActivities({ orm: deps.orm, liveRail: deps.rail ? 'partner' : 'none' }), ...createOperatorAuditActivities({ orm: deps.orm }), ...createWebhookActivities({ orm: deps.orm, ...deps.webhooks }), ...createNotificationActivities({ orm: deps.orm, secretBox: deps.webhooks.secretBox, dbLanes: deps.webhooks.dbLanes, config: deps.notifications ?? loadNotificationConfig() }), ...createRailActivities({ orm: deps.orm, secretBox: deps.webhooks.secretBox, rail: deps.rail && nonRetryableRail(deps.rail) }), ...createPaymentReviewActivities({ orm: deps.orm, secretBox: deps.webhooks.secretBox, rail: deps.rail && nonRetryableRail(deps.rail) }), ...createReconcileActivities({ orm: deps.orm, statements: deps.statements }), ...createRetentionActivities({ orm: deps.orm, plan: deps.retention ?? retentionSettings().plan }), ...createWebhookRecoveryActivities({ orm: deps.orm, dbLanes: deps.webhooks.dbLanes }), ...createWebhookFifoActivities({ orm: deps.orm, dbLanes: deps.webhooks.dbLanes }) };
}
