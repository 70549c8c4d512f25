import type { PartnerName } from '../domain/rail-routes';
import type { PartnerStatement } from '../rail/momo-statement';
import type { RailProduct } from '../rail/partner-rail';

/**
 * A partner's daily statements (issue 45: one client per partner, both answering the MoMo
 * statement's format, src/rail/momo-statement.ts): MoMo's (src/reconcile/statement-client.ts, PARTNER_*)
 * and the aggregator's (src/reconcile/aggregator-statement-client.ts, AGGREGATOR_*). The import, the
 * daily Schedule's activity and `reconcile run` choose one by partner.
 */
export interface PartnerStatementClient {
  readonly partner: PartnerName;
  /** Where its statements come from, as an import records it (`partner:<url>`, `aggregator:<url>`). */
  readonly source: string;
  fetch(product: RailProduct, date: string): Promise<PartnerStatement>;
  close(): Promise<void>;
}
