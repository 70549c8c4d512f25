import type { PartnerConfig } from '../rail/partner-config';
import type { RailProduct } from '../rail/partner-rail';
import { RailUnavailable } from '../rail/partner-rail';
import { HEADER } from '../rail/momo-protocol';
import { PartnerHttp } from '../rail/momo-http';
import { MomoTokens } from '../rail/momo-token';
import { RailMisconfigured } from '../rail/rail-errors';
import { parseStatementJson, type PartnerStatement } from '../rail/momo-statement';
import type { PartnerStatementClient } from './partner-statement-client';

/** A statement can be large: the most we read (the rail's status answers are capped far lower). */
export const MAX_STATEMENT_BYTES = 64 * 1024 * 1024;

/** The longest wait for a statement: it is made on demand and can be large. */
export const STATEMENT_TIMEOUT_MS = 60_000;

/**
 * Fetches the partner's statement of a product and UTC day (`GET /{product}/v1_0/statement?date=`,
 * docs/partner-rail.md "The statement") with the same PARTNER_* settings as the rail: a token of the
 * product, its subscription key, the target environment. A refused token or call:
 * RailMisconfigured; no answer or another status: RailUnavailable (retried by the import workflow).
 * MoMo's statements (partner `momo`); the aggregator's: src/reconcile/aggregator-statement-client.ts.
 */
export class StatementClient implements PartnerStatementClient {
  readonly partner = 'momo' as const;
  /** As the import records it. */
  readonly source: string;
  private readonly http: PartnerHttp;
  private readonly tokens: MomoTokens;

  constructor(private readonly config: PartnerConfig) {
    this.source = `partner:${config.baseUrl}`;
    this.http = new PartnerHttp(config.baseUrl, config.timeoutMs, 2);
    this.tokens = new MomoTokens(this.http, config.credentials);
  }

  async fetch(product: RailProduct, date: string): Promise<PartnerStatement> {
    const path = `/${product}/v1_0/statement?date=${encodeURIComponent(date)}`;
    const url = new URL(this.config.baseUrl.replace(/\/+$/, '') + path);
    const token = await this.tokens.get(product);
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { authorization: `Bearer ${token}`, [HEADER.subscriptionKey]: this.config.credentials[product].subscriptionKey, [HEADER.targetEnvironment]: this.config.targetEnvironment, accept: 'application/json' },
        signal: AbortSignal.timeout(STATEMENT_TIMEOUT_MS),
      });
    } catch (error) {
      throw new RailUnavailable(`GET ${path}: ${(error as Error)?.message ?? String(error)}`);
    }
    if (response.status === 401 || response.status === 403) {
      this.tokens.invalidate(product, token);
      throw new RailMisconfigured(`GET ${path}: the partner refused our ${product} credentials (HTTP ${response.status})`, response.status);
    }
    if (response.status !== 200) throw new RailUnavailable(`GET ${path}: HTTP ${response.status}`, response.status);
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > MAX_STATEMENT_BYTES) throw new RailUnavailable(`GET ${path}: a statement larger than ${MAX_STATEMENT_BYTES} bytes`, 200);
    const statement = parseStatementJson(await response.json());
    if (statement.product !== product || statement.date !== date) throw new RailUnavailable(`GET ${path}: the partner answered the statement of ${statement.product} ${statement.date}`, 200);
    return statement;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
