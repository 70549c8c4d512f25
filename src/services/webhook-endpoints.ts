import { ApiError } from '../domain/errors';
import { DEFAULT_TIMEOUT_SECONDS, type WebhookEndpointRecord } from '../domain/webhook-endpoint';
import {
  findEndpoint,
  insertEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
  type EndpointPatch,
} from '../persistence/webhook-endpoint-store';
import { newId } from '../support/new-id';
import { urlPolicyFor } from '../webhooks/policies';
import { newSigningSecret } from '../webhooks/signature';
import { checkWebhookUrl, UnsafeUrlError } from '../webhooks/url-policy';
import type { Caller, ServiceDeps } from './context';

/** POST /v1/webhook-endpoints body (validated by the http schema). */
export interface CreateEndpointRequest {
  url: string;
  subscribed_events?: string[];
  description?: string | null;
  timeout_seconds?: number;
}

/** PATCH body: any subset. */
export interface UpdateEndpointRequest {
  url?: string;
  subscribed_events?: string[];
  description?: string | null;
  timeout_seconds?: number;
  status?: 'active' | 'disabled';
}

/** The registration-time URL rule; refusals are `invalid_webhook_url` with the reason. */
async function checkedUrl(deps: ServiceDeps, caller: Caller, url: string): Promise<string> {
  try {
    return await checkWebhookUrl(url, urlPolicyFor(caller.environment, deps.webhooks), deps.resolve);
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw new ApiError('invalid_webhook_url', error.message, { param: 'url' });
    throw error;
  }
}

/** Registers an endpoint; the secret is returned this once and stored sealed. */
export async function createEndpoint(deps: ServiceDeps, caller: Caller, req: CreateEndpointRequest): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const url = await checkedUrl(deps, caller, req.url);
  const secret = newSigningSecret();
  const endpoint = await insertEndpoint(deps.orm, caller, {
    id: newId('webhookEndpoint'),
    url,
    description: req.description ?? null,
    subscribedEvents: req.subscribed_events ?? [],
    timeoutSeconds: req.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
    sealedSecret: deps.secretBox.seal(secret),
  });
  return { endpoint, secret };
}

export async function patchEndpoint(deps: ServiceDeps, caller: Caller, id: string, req: UpdateEndpointRequest): Promise<WebhookEndpointRecord> {
  if (!(await findEndpoint(deps.orm, caller, id))) throw notFound(id);
  const patch: EndpointPatch = {
    ...(req.url !== undefined ? { url: await checkedUrl(deps, caller, req.url) } : {}),
    ...(req.description !== undefined ? { description: req.description } : {}),
    ...(req.subscribed_events !== undefined ? { subscribedEvents: req.subscribed_events } : {}),
    ...(req.timeout_seconds !== undefined ? { timeoutSeconds: req.timeout_seconds } : {}),
    ...(req.status !== undefined ? { status: req.status } : {}),
  };
  const updated = await updateEndpoint(deps.orm, caller, id, patch);
  if (!updated) throw notFound(id);
  return updated;
}

/** A new secret signs at once; the previous one keeps signing (second) until the overlap ends. */
export async function rotateSecret(deps: ServiceDeps, caller: Caller, id: string): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const secret = newSigningSecret();
  const endpoint = await rotateEndpointSecret(deps.orm, caller, id, deps.secretBox.seal(secret), deps.webhooks.secretOverlapMs);
  if (!endpoint) throw notFound(id);
  return { endpoint, secret };
}

export function notFound(id: string): ApiError {
  return new ApiError('not_found', `No webhook endpoint ${id}.`, { param: 'id' });
}
