import type { Dispatcher } from 'undici';
import type { WebhookConfig } from '../config';
import type { Environment } from '../domain/environment';
import { urlPolicyFor } from './policies';
import { createSafeAgent } from './safe-agent';

/** One SSRF-checked agent per environment, each with that environment's URL policy. */
export function policyAgents(config: Pick<WebhookConfig, 'allowPrivateHosts' | 'allowHttp'>): Record<Environment, Dispatcher> {
  return {
    sandbox: createSafeAgent(urlPolicyFor('sandbox', config)),
    live: createSafeAgent(urlPolicyFor('live', config)),
  };
}
