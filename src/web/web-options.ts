import type { SessionTimeouts } from '../persistence/portal/portal-session-store';
import type { SignInLimitSettings } from '../persistence/portal/sign-in-limits';
import type { TrustedProxies } from '../support/trusted-proxies';

/** What the web port's parts know beyond the services: where things are, as a browser reaches them. */
export interface WebOptions {
  /** The web port's own public base URL (WEB_PUBLIC_URL), e.g. http://127.0.0.1:3002. */
  webUrl: string;
  /** The sandbox API's base URL as a browser reaches it (the reference site's console sends there only). */
  sandboxApiUrl: string;
  /**
   * The OpenAPI document the reference site renders, from src/http/openapi (passed in by src/main.ts:
   * only main.ts reaches into http/). Without it the reference loads the sandbox listener's
   * `GET /v1/openapi.json`, which allows the web port's origin by CORS.
   */
  openApiDocument?: () => Record<string, unknown>;
  /** The Temporal UI's base URL (TEMPORAL_UI_URL) and namespace: an operators' tool, linked from the portal only with `portalTemporalUiLink`. */
  temporalUi?: { baseUrl: string; namespace: string };
  /** PORTAL_TEMPORAL_UI_LINK=true: a payment's page links its workflow in `temporalUi` (default off: merchants are not the UI's users). */
  portalTemporalUiLink?: boolean;
  /** The reference site's own origin (DOCS_PUBLIC_URL; src/web/docs/app.ts): the web port redirects `/docs` there and the portal links to it. */
  docsUrl?: string;
  /** The API's rate limits in force (RATE_LIMIT_SANDBOX, RATE_LIMIT_LIVE), shown on the portal's Settings; the defaults when not given. */
  rateLimits?: { sandbox: number; live: number };
  /** The portal's sign-in limits per address and per email (src/persistence/portal/sign-in-limits.ts); the defaults when not given. */
  signInLimits?: SignInLimitSettings;
  /** TRUSTED_PROXIES: whose `X-Forwarded-For` names the client (src/support/client-address.ts); unset, none. */
  trustedProxies?: TrustedProxies;
  /** Password hashes in flight and waiting on this process (src/support/hash-slots.ts); the defaults when not given. */
  hashSlots?: { slots: number; queue: number };
  /** The portal sessions' idle and absolute timeouts (PORTAL_SESSION_IDLE_MINUTES, PORTAL_SESSION_MAX_HOURS); 30 min and 12 h when not given. */
  sessionTimeouts?: SessionTimeouts;
  /** The retry schedule of the password-reset emails' workflows (the reset's link lasts 30 min); PASSWORD_RESET_RETRY_MS when not given. */
  passwordResetRetryMs?: number[];
}
