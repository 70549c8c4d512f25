import type { WebhookConfig } from '../config';
import type { Environment } from '../domain/environment';
import type { UrlPolicy } from './url-policy';

/** The URL policy of one environment: the local-development exemptions never reach live. */
export function urlPolicyFor(environment: Environment, config: Pick<WebhookConfig, 'allowPrivateHosts' | 'allowHttp'>): UrlPolicy {
  if (environment === 'live') return { environment, allowPrivateHosts: [], allowHttp: false };
  return { environment, allowPrivateHosts: config.allowPrivateHosts, allowHttp: config.allowHttp };
}
