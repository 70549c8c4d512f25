import type { AggregatorCards } from '../rail/aggregator/card';
import type { Environment } from '../domain/environment';
import type { Orm } from '../persistence/orm';
import type { TemporalHandle } from '../temporal/connection';
import type { Logger } from '../support/logger';
import type { ApiMetrics } from '../support/metrics';
import type { SecretBox } from '../support/secret-box';
import type { WebhookConfig } from '../config';
import type { Resolver } from '../webhooks/url-policy';
import type { LiveRail } from '../domain/live-rail';
import type { PartnerCallbackSettings } from '../rail/partner-rail';
import type { PartnerName, RailRoutes } from '../domain/rail-routes';

/** What every use case needs; built once by the runtime and shared by both listeners. */
export interface ServiceDeps {
  orm: Orm;
  temporal: TemporalHandle;
  taskQueue: string;
  log: Logger;
  metrics?: ApiMetrics;
  /** Seals webhook signing secrets at rest. */
  secretBox: SecretBox;
  webhooks: WebhookConfig;
  /** DNS for the registration-time URL check (the system resolver unless a test passes one). */
  resolve?: Resolver;
  /** Longest wait of one request on Temporal before 503 `service_unavailable` (default 10 s; TEMPORAL_REQUEST_DEADLINE_MS). */
  temporalDeadlineMs?: number;
  /** Longest wait of a charge create on its workflow's start before it answers anyway (CHARGE_START_WAIT_MS, default 1 s). */
  chargeStartWaitMs?: number;
  /** The live rail the workers have (src/domain/live-rail.ts); without one (`none`, the default) live money movement is 503 `live_unavailable`. */
  liveRail?: LiveRail;
  /** Which live partner takes what (RAIL_ROUTES, checked at start; src/domain/rail-routes.ts). Absent: the rail's default (railRoutesOf). */
  railRoutes?: RailRoutes;
  /** Issue 46: whether a partner takes new payments now; absent, its circuit breaker says (partner_breakers). */
  partnerAdmits?: (partner: PartnerName) => Promise<boolean>;
  /** The aggregator's webhook settings (AGGREGATOR_WEBHOOK_HASH), for its webhook route on the live listener (issue 45). */
  aggregatorWebhooks?: { webhookHash: string };
  /** Live cards (issue 45): the aggregator's card calls, made by the hosted checkout page only (AGGREGATOR_ENCRYPTION_KEY set). Absent: live card pages cannot send a card. */
  cardPayments?: Pick<AggregatorCards, 'chargeCard' | 'validateOtp'>;
  /** The partner's callback settings, for the callback route on the live listener (src/http/routes/partner-callbacks.ts). */
  partnerCallbacks?: PartnerCallbackSettings;
  /** The web port's public base URL (WEB_PUBLIC_URL): hosted checkout's `action.url` points there. */
  webUrl?: string;
  /** How far back GET /v1/events walks (EVENTS_WALK_WINDOW, default 90 days; src/http/routes/events.ts). */
  eventsWalkWindowMs?: number;
}

/** The caller: a merchant's key on one environment. Every query is scoped by this. */
export interface Caller {
  merchantId: string;
  environment: Environment;
  keyId: string;
  merchantVerified: boolean;
}
