import type { PartnerName } from '../domain/rail-routes';
import { loadPartnerConfig } from '../rail/partner-config';
import { aggregatorConfigFromEnv } from '../rail/aggregator/config';
import { StatementClient } from './statement-client';
import { AggregatorStatementClient } from './aggregator-statement-client';
import type { PartnerStatementClient } from './partner-statement-client';

export type { PartnerStatementClient } from './partner-statement-client';

/** The partners an environment configures, in the order they are reconciled: PARTNER_* → momo, AGGREGATOR_* → aggregator. */
export function configuredPartners(env: NodeJS.ProcessEnv): PartnerName[] {
  const partners: PartnerName[] = [];
  if (loadPartnerConfig(env)) partners.push('momo');
  if (aggregatorConfigFromEnv(env)) partners.push('aggregator');
  return partners;
}

/** The statement client of a partner an environment configures; null when it has no settings for it. */
export function statementClientFor(env: NodeJS.ProcessEnv, partner: PartnerName): PartnerStatementClient | null {
  if (partner === 'momo') {
    const config = loadPartnerConfig(env);
    return config ? new StatementClient(config) : null;
  }
  const config = aggregatorConfigFromEnv(env);
  return config ? new AggregatorStatementClient(config) : null;
}
