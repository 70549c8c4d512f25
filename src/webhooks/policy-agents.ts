import type { Dispatcher } from 'undici';
import type { WebhookConfig } from '../config';
import type { Environment } from '../domain/environment';
import { urlPolicyFor } from './policies';
import { createSafeAgent } from './safe-agent';

type AgentConfig = Pick<WebhookConfig, 'allowPrivateHosts' | 'allowHttp'> & Partial<Pick<WebhookConfig, 'dnsTimeoutMs'>>;

/** One SSRF-checked agent per environment, each with that environment's URL policy. */
export function policyAgents(config: AgentConfig): Record<Environment, Dispatcher> {
  const options = config.dnsTimeoutMs === undefined ? {} : { dnsTimeoutMs: config.dnsTimeoutMs };
  return {
    sandbox: createSafeAgent(urlPolicyFor('sandbox', config), options),
    live: createSafeAgent(urlPolicyFor('live', config), options),
  };
}
