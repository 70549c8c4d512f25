import type { Orm } from '../src/persistence/orm';
import { createChargeActivities } from './charges';
import { createPayoutActivities } from './payouts';
import { createRefundActivities } from './refunds';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';

export interface ActivityDeps {
  orm: Orm;
  webhooks: Omit<WebhookActivityDeps, 'orm'>;
}

/** Every activity the payments worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return { ...createChargeActivities(deps), ...createPayoutActivities({ orm: deps.orm }), ...createRefundActivities({ orm: deps.orm }), ...createWebhookActivities({ orm: deps.orm, ...deps.webhooks }) };
}
