import type { AggregatorConfig } from '../rail/aggregator/config';
import { AUTHORIZATION_SCHEME, PATH } from '../rail/aggregator/protocol';
import type { RailProduct } from '../rail/partner-rail';
import { RailUnavailable } from '../rail/partner-rail';
import { RailMisconfigured } from '../rail/rail-errors';
import { parseStatementJson, type PartnerStatement } from '../rail/momo-statement';
import { MAX_STATEMENT_BYTES, STATEMENT_TIMEOUT_MS } from './statement-client';
import type { PartnerStatementClient } from './partner-statement-client';

/**
 * Fetches the aggregator's statement of a product and UTC day (`GET /v3/statements/{product}?date=`,
 * docs/aggregator.md "The statement") with the AGGREGATOR_* settings of its rail: the secret key as
 * `Authorization: Bearer`. The statement is in the MoMo statement's format (src/rail/momo-statement.ts),
 * so it is imported and matched as MoMo's is, under partner `aggregator`. A refused key:
 * RailMisconfigured; no answer or another status: RailUnavailable (retried by the import workflow).
 */
export class AggregatorStatementClient implements PartnerStatementClient {
  readonly partner = 'aggregator' as const;
  readonly source: string;

  constructor(private readonly config: AggregatorConfig) {
    this.source = `aggregator:${config.baseUrl}`;
  }

  async fetch(product: RailProduct, date: string): Promise<PartnerStatement> {
    const path = `${PATH.statement(product, 'json')}?date=${encodeURIComponent(date)}`;
    const url = new URL(this.config.baseUrl.replace(/\/+$/, '') + path);
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { authorization: `${AUTHORIZATION_SCHEME} ${this.config.secretKey}`, accept: 'application/json' },
        signal: AbortSignal.timeout(STATEMENT_TIMEOUT_MS),
      });
    } catch (error) {
      throw new RailUnavailable(`GET ${path}: ${(error as Error)?.message ?? String(error)}`);
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new RailMisconfigured(`GET ${path}: the aggregator refused our secret key (HTTP ${response.status})`, response.status);
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new RailUnavailable(`GET ${path}: HTTP ${response.status}`, response.status);
    }
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > MAX_STATEMENT_BYTES) {
      await response.body?.cancel();
      throw new RailUnavailable(`GET ${path}: a statement larger than ${MAX_STATEMENT_BYTES} bytes`, 200);
    }
    const statement = parseStatementJson(await response.json());
    if (statement.product !== product || statement.date !== date) throw new RailUnavailable(`GET ${path}: the aggregator answered the statement of ${statement.product} ${statement.date}`, 200);
    return statement;
  }

  async close(): Promise<void> {}
}
