import { ApiError } from '../domain/errors';
import { DEFAULT_DELIVERY_ORDER, type DeliveryOrder } from '../domain/webhook-fifo';
import { DEFAULT_SIGNATURE_SCHEME, DEFAULT_TIMEOUT_SECONDS, type SignatureScheme, type WebhookEndpointRecord } from '../domain/webhook-endpoint';
import { insertEndpointWithinLimit } from '../persistence/webhooks/webhook-endpoint-limit';
import type { ChangeActor } from '../domain/operator-action';
import {
  deleteEndpoint,
  findEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
  type EndpointPatch,
} from '../persistence/webhooks/webhook-endpoint-store';
import { newId } from '../support/new-id';
import { urlPolicyFor } from '../webhooks/policies';
import { newSigningSecret } from '../webhooks/signature';
import { createDnsResolver, type Resolver } from '../webhooks/dns-resolver';
import { checkWebhookUrl, UnsafeUrlError } from '../webhooks/url-policy';
import type { Caller, ServiceDeps } from './context';

/** POST /v1/webhook-endpoints body (validated by the http schema). */
export interface CreateEndpointRequest {
  url: string;
  subscribed_events?: string[];
  description?: string | null;
  timeout_seconds?: number;
  signature_scheme?: SignatureScheme;
  max_per_second?: number | null;
  max_in_flight?: number | null;
  delivery_order?: DeliveryOrder;
}

/** PATCH body: any subset. */
export interface UpdateEndpointRequest {
  url?: string;
  subscribed_events?: string[];
  description?: string | null;
  timeout_seconds?: number;
  signature_scheme?: SignatureScheme;
  max_per_second?: number | null;
  max_in_flight?: number | null;
  delivery_order?: DeliveryOrder;
  status?: 'active' | 'disabled';
}

/** WEBHOOK_MAX_ENDPOINTS when the configuration does not say. */
export const DEFAULT_MAX_ENDPOINTS = 16;

const resolvers = new Map<number, Resolver>();

/** The registration-time resolver: the test's, else c-ares with WEBHOOK_DNS_TIMEOUT_MS (one per timeout, built once). */
function registrationResolver(deps: ServiceDeps): Resolver | undefined {
  if (deps.resolve) return deps.resolve;
  const timeoutMs = deps.webhooks.dnsTimeoutMs;
  if (timeoutMs === undefined) return undefined;
  let resolver = resolvers.get(timeoutMs);
  if (!resolver) {
    resolver = createDnsResolver({ timeoutMs });
    resolvers.set(timeoutMs, resolver);
  }
  return resolver;
}

/** The registration-time URL rule; refusals are `invalid_webhook_url` with the reason. */
async function checkedUrl(deps: ServiceDeps, caller: Caller, url: string): Promise<string> {
  try {
    return await checkWebhookUrl(url, urlPolicyFor(caller.environment, deps.webhooks), registrationResolver(deps));
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw new ApiError('invalid_webhook_url', error.message, { param: 'url' });
    throw error;
  }
}

/**
 * Registers an endpoint; the secret is returned this once and stored sealed. At most
 * WEBHOOK_MAX_ENDPOINTS (default 16) endpoints per merchant and environment, disabled ones included
 * (deleted ones not): one more is 422 `endpoint_limit_reached` and writes nothing. The cap keeps one
 * merchant's fan-out (deliveries per event) bounded.
 */
/**
 * Who changes an endpoint through the API, for its audit row: the key (`api_key:<id>`), the request
 * (`reason`: method and path) and its request id. Without one (a call from code, not a request), the
 * key and a fresh request id.
 */
export function apiActor(caller: Caller, request?: { id: string; method: string; path: string }): ChangeActor {
  return {
    operator: `api_key:${caller.keyId}`,
    reason: request ? `${request.method} ${request.path}` : 'webhook endpoint change through the service',
    requestId: request?.id ?? newId('request'),
  };
}

export async function createEndpoint(
  deps: ServiceDeps,
  caller: Caller,
  req: CreateEndpointRequest,
  actor: ChangeActor = apiActor(caller),
): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const url = await checkedUrl(deps, caller, req.url);
  const secret = newSigningSecret();
  const max = deps.webhooks.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS;
  const endpoint = await insertEndpointWithinLimit(
    deps.orm,
    caller,
    {
      id: newId('webhookEndpoint'),
      url,
      description: req.description ?? null,
      subscribedEvents: req.subscribed_events ?? [],
      timeoutSeconds: req.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
      signatureScheme: req.signature_scheme ?? DEFAULT_SIGNATURE_SCHEME,
      maxPerSecond: req.max_per_second ?? null,
      maxInFlight: req.max_in_flight ?? null,
      deliveryOrder: req.delivery_order ?? DEFAULT_DELIVERY_ORDER,
      sealedSecret: deps.secretBox.seal(secret),
    },
    max,
    actor,
  );
  if (!endpoint) {
    throw new ApiError(
      'endpoint_limit_reached',
      `This account already has the maximum of ${max} webhook endpoints in ${caller.environment}; delete one before adding another (one endpoint can subscribe to every event).`,
    );
  }
  return { endpoint, secret };
}

export async function patchEndpoint(deps: ServiceDeps, caller: Caller, id: string, req: UpdateEndpointRequest, actor: ChangeActor = apiActor(caller)): Promise<WebhookEndpointRecord> {
  if (!(await findEndpoint(deps.orm, caller, id))) throw notFound(id);
  const patch: EndpointPatch = {
    ...(req.url !== undefined ? { url: await checkedUrl(deps, caller, req.url) } : {}),
    ...(req.description !== undefined ? { description: req.description } : {}),
    ...(req.subscribed_events !== undefined ? { subscribedEvents: req.subscribed_events } : {}),
    ...(req.timeout_seconds !== undefined ? { timeoutSeconds: req.timeout_seconds } : {}),
    ...(req.signature_scheme !== undefined ? { signatureScheme: req.signature_scheme } : {}),
    ...(req.max_per_second !== undefined ? { maxPerSecond: req.max_per_second } : {}),
    ...(req.max_in_flight !== undefined ? { maxInFlight: req.max_in_flight } : {}),
    ...(req.delivery_order !== undefined ? { deliveryOrder: req.delivery_order } : {}),
    ...(req.status !== undefined ? { status: req.status } : {}),
  };
  const updated = await updateEndpoint(deps.orm, caller, id, patch, actor);
  if (!updated) throw notFound(id);
  return updated;
}

/** A new secret signs at once; the previous one keeps signing (second) until the overlap ends. */
export async function rotateSecret(deps: ServiceDeps, caller: Caller, id: string, actor: ChangeActor = apiActor(caller)): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const secret = newSigningSecret();
  const endpoint = await rotateEndpointSecret(deps.orm, caller, id, deps.secretBox.seal(secret), deps.webhooks.secretOverlapMs, actor);
  if (!endpoint) throw notFound(id);
  return { endpoint, secret };
}

/** Soft delete, with its audit row; 404 when absent. */
export async function removeEndpoint(deps: ServiceDeps, caller: Caller, id: string, actor: ChangeActor = apiActor(caller)): Promise<void> {
  if (!(await deleteEndpoint(deps.orm, caller, id, actor))) throw notFound(id);
}

export function notFound(id: string): ApiError {
  return new ApiError('not_found', `No webhook endpoint ${id}.`, { param: 'id' });
}
