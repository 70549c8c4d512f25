import type { PartnerName } from '../domain/rail-routes';
import type { Orm } from '../persistence/orm';
import { PartnerCallLog } from '../persistence/partner/partner-call-store';
import { partnerOfReference } from '../persistence/partner/reference-partner-store';
import { AggregatorRail } from '../rail/aggregator/adapter';
import type { AggregatorConfig } from '../rail/aggregator/config';
import { MeasuredRail } from '../rail/measured-rail';
import { MomoPartnerRail } from '../rail/momo-adapter';
import type { PartnerConfig } from '../rail/partner-config';
import type { PartnerRail } from '../rail/partner-rail';
import { RoutedRail } from '../rail/routed-rail';
import type { Logger } from '../support/logger';

/** A worker's live partners (issue 45) and the one rail its activities call. */
export interface LiveRails {
  /** Undefined when the worker has no partner at all (live payments that never reached one fail with partner_unavailable). */
  rail: PartnerRail | undefined;
  partners: PartnerName[];
  /** Issue 46: the measured calls waiting to be written (undefined without partners); the worker's partner breaker loop writes them every second. */
  calls: PartnerCallLog | undefined;
  close(): Promise<void>;
}

/**
 * The worker's rail from its partners' settings (PARTNER_*, AGGREGATOR_*): each reference's calls go
 * to the partner it was sent to (RoutedRail, the partner read from rail_references). Issue 46: each
 * partner's calls are measured (MeasuredRail) into one PartnerCallLog, which the worker's partner
 * breaker loop writes to `partner_calls` every second (and close writes what is left): the health
 * view and the circuit breakers read them.
 */
export function liveRailsOf(orm: Orm, configs: { momo?: PartnerConfig; aggregator?: AggregatorConfig }, log: Pick<Logger, 'warn'>): LiveRails {
  const momo = configs.momo ? new MomoPartnerRail(configs.momo, { logger: log }) : undefined;
  const aggregator = configs.aggregator ? new AggregatorRail(configs.aggregator, { logger: log }) : undefined;
  const calls = momo || aggregator ? new PartnerCallLog(orm, log, 0) : undefined;
  const measured = (name: PartnerName, rail: PartnerRail) => new MeasuredRail(name, rail, calls!);
  const partners = { ...(momo ? { momo: measured('momo', momo) } : {}), ...(aggregator ? { aggregator: measured('aggregator', aggregator) } : {}) };
  const names = Object.keys(partners) as PartnerName[];
  return {
    rail: names.length ? new RoutedRail(partners, (referenceId) => partnerOfReference(orm, referenceId)) : undefined,
    partners: names,
    calls,
    close: async () => {
      await Promise.all([momo?.close(), aggregator?.close()]);
      await calls?.close();
    },
  };
}
