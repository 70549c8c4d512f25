import Koa from 'koa';
import Router from '@koa/router';
import { DEFAULT_CALLBACK_RATE_LIMIT, DEFAULT_RATE_LIMITS } from '../config';
import type { Environment } from '../domain/environment';
import type { ServiceDeps } from '../services/context';
import { clientAddress } from '../support/client-address';
import type { TrustedProxies } from '../support/trusted-proxies';
import { accessLog } from './middleware/access-log';
import { callbackLimit } from './middleware/callback-limit';
import { apiHeaders } from './middleware/api-headers';
import { authenticate } from './middleware/auth';
import { methodNotAllowed } from './middleware/method-not-allowed';
import { rateLimits } from './middleware/rate-limit';
import { sandboxCors } from './middleware/sandbox-cors';
import { errorHandler } from './middleware/errors';
import { requestId } from './middleware/request-id';
import { balanceRoutes } from './routes/balances';
import { balanceTransactionRoutes } from './routes/balance-transactions';
import { chargeRoutes } from './routes/charges';
import { chargeListRoutes } from './routes/charge-list';
import { eventRoutes } from './routes/events';
import { healthRoutes } from './routes/health';
import { payoutRoutes } from './routes/payouts';
import { referenceRoutes } from './routes/reference';
import { sandboxAdvanceRoutes } from './routes/sandbox-advance';
import { sandboxDisputeRoutes } from './routes/sandbox-disputes';
import { disputeRoutes } from './routes/disputes';
import { refundRoutes } from './routes/refunds';
import { settlementRoutes } from './routes/settlements';
import { webhookDeliveryRoutes } from './routes/webhook-deliveries';
import { aggregatorWebhookRoutes } from './routes/aggregator-webhooks';
import { webhookEndpointRoutes } from './routes/webhook-endpoints';
import { openApiRoutes } from './routes/openapi';
import { partnerCallbackRoutes } from './routes/partner-callbacks';

export interface AppOptions {
  environment: Environment;
  bodyLimitBytes: number;
  /**
   * Requests per second per merchant on this listener, bursts up to twice that (RATE_LIMIT_SANDBOX /
   * RATE_LIMIT_LIVE; unset: INTERFACE's 25 or 100). `off` only for the bench's comparison.
   */
  rateLimitPerSecond?: number | 'off';
  /**
   * The web port's origin (WEB_PUBLIC_URL), the one origin the sandbox listener allows by CORS for the
   * reference site's request console. Ignored on the live listener, which allows no origin.
   */
  webOrigin?: string;
  /**
   * TRUSTED_PROXIES: whose `X-Forwarded-For` names the client (src/support/client-address.ts), for
   * every per-address limit and the access log. Unset: none, the socket's peer is the client.
   */
  trustedProxies?: TrustedProxies;
  /** CALLBACK_RATE_LIMIT: partner callbacks and aggregator webhooks per minute per client address (live listener); unset, 600. */
  callbackRateLimit?: number;
}

/**
 * Every `/v1` router of a listener, in the order they are mounted: the sandbox controls only on the
 * sandbox listener (the live one answers 404 for them). Exported so that tests (and the OpenAPI
 * document) can walk every route the listener serves.
 */
export function v1Routers(deps: ServiceDeps, options: AppOptions): Router[] {
  return [
    chargeRoutes(deps, options.bodyLimitBytes),
    refundRoutes(deps, options.bodyLimitBytes),
    disputeRoutes(deps, options.bodyLimitBytes),
    payoutRoutes(deps, options.bodyLimitBytes),
    settlementRoutes(deps),
    chargeListRoutes(deps),
    balanceRoutes(deps),
    balanceTransactionRoutes(deps),
    eventRoutes(deps),
    referenceRoutes(deps),
    webhookEndpointRoutes(deps, options.bodyLimitBytes),
    webhookDeliveryRoutes(deps),
    ...(options.environment === 'sandbox' ? [sandboxAdvanceRoutes(deps), sandboxDisputeRoutes(deps, options.bodyLimitBytes)] : []),
  ];
}

/** One listener's app; the environment is the listener's, never the caller's choice. No `listen` here. */
export function createApp(deps: ServiceDeps, options: AppOptions): Koa {
  const app = new Koa();
  // Never Koa's own reading of X-Forwarded-* (it would take the scheme and host from them too): the
  // client's address alone, by TRUSTED_PROXIES.
  app.proxy = false;
  app.silent = true;
  app.use(clientAddress(options.trustedProxies));
  app.use(requestId());
  app.use(apiHeaders());
  if (options.environment === 'sandbox' && options.webOrigin) app.use(sandboxCors(options.webOrigin));
  app.use(accessLog(deps.log, options.environment, deps.metrics));
  app.use(errorHandler(deps.log));
  app.use(healthRoutes(deps, options.environment).routes());
  if (options.environment === 'live') {
    // One limit per client address over both partners' callbacks (CALLBACK_RATE_LIMIT), before anything else of theirs.
    const limit = callbackLimit(deps.orm, options.callbackRateLimit ?? DEFAULT_CALLBACK_RATE_LIMIT);
    // The live partner's callbacks (no API key: the URL's token authenticates them); live listener only.
    app.use(partnerCallbackRoutes(deps, limit).routes());
    // The aggregator's webhooks (issue 45; `verif-hash` authenticates them); live listener only.
    app.use(aggregatorWebhookRoutes(deps, limit).routes());
  }

  const perSecond = options.rateLimitPerSecond ?? DEFAULT_RATE_LIMITS[options.environment];
  const limits = perSecond === 'off' ? undefined : rateLimits(deps.orm, options.environment, perSecond);
  const v1 = new Router();
  v1.use(openApiRoutes().routes()); // no API key: before authenticate
  v1.use(authenticate(deps, options.environment));
  if (limits) v1.use(limits.merchant);
  for (const router of v1Routers(deps, options)) v1.use(router.routes());
  const v1Routes = v1.routes();
  const notAllowed = methodNotAllowed();
  const routed: Koa.Middleware = (ctx, next) => notAllowed(ctx, () => v1Routes(ctx as never, next));
  const dispatch: Koa.Middleware = limits ? (ctx, next) => limits.others(ctx, () => routed(ctx, next)) : routed;
  app.use(async (ctx, next) => (ctx.path.startsWith('/v1/') ? dispatch(ctx, next) : next()));
  return app;
}
