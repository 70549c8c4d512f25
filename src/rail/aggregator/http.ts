import { PartnerHttp, type PartnerAnswer } from '../momo-http';
import type { AggregatorConfig } from './config';
import { AUTHORIZATION_SCHEME } from './protocol';

export type { PartnerAnswer as AggregatorAnswer } from '../momo-http';

/**
 * HTTP to the aggregator: the MoMo adapter's client (src/rail/momo-http.ts: one undici Pool, every
 * call bounded by the timeout, every failure to get an answer a RailUnavailable) with the
 * aggregator's static bearer key on every call and JSON bodies. Headers and bodies are never logged:
 * they carry the key.
 */
export class AggregatorHttp {
  private readonly http: PartnerHttp;

  constructor(private readonly config: Pick<AggregatorConfig, 'baseUrl' | 'secretKey' | 'timeoutMs'>, connections?: number) {
    this.http = new PartnerHttp(config.baseUrl, config.timeoutMs, connections);
  }

  get(path: string, query: Record<string, string>): Promise<PartnerAnswer> {
    return this.http.send('GET', withQuery(path, query), this.headers());
  }

  post(path: string, body: unknown, query: Record<string, string> = {}): Promise<PartnerAnswer> {
    return this.http.send('POST', withQuery(path, query), { ...this.headers(), 'content-type': 'application/json' }, JSON.stringify(body));
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private headers(): Record<string, string> {
    return { authorization: `${AUTHORIZATION_SCHEME} ${this.config.secretKey}`, accept: 'application/json' };
  }
}

export function withQuery(path: string, query: Record<string, string>): string {
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}
