import { RailUnavailable, type RailProduct } from './partner-rail';
import type { PartnerCredentials } from './partner-config';
import { HEADER, tokenPath } from './momo-protocol';
import type { PartnerHttp } from './momo-http';
import { RailMisconfigured } from './rail-errors';

/** A token is renewed this long before the partner says it expires (at most a tenth of its life). */
export const TOKEN_RENEW_MARGIN_MS = 60_000;

interface Held {
  token: string;
  renewAt: number;
}

/**
 * The access tokens of the two products: one `POST /{product}/token/` (Basic apiUser:apiKey and the
 * product's subscription key) gives a bearer token, kept until shortly before its `expires_in`.
 * Concurrent callers share one token request. A token the partner refused (401) is dropped with
 * `invalidate`, so the next `get` asks for a new one.
 */
export class MomoTokens {
  private readonly held = new Map<RailProduct, Held>();
  private readonly asking = new Map<RailProduct, Promise<string>>();

  constructor(
    private readonly http: PartnerHttp,
    private readonly credentials: Record<RailProduct, PartnerCredentials>,
    private readonly now: () => number = Date.now,
  ) {}

  get(product: RailProduct): Promise<string> {
    const held = this.held.get(product);
    if (held && this.now() < held.renewAt) return Promise.resolve(held.token);
    let asking = this.asking.get(product);
    if (!asking) {
      asking = this.ask(product).finally(() => this.asking.delete(product));
      this.asking.set(product, asking);
    }
    return asking;
  }

  /** Drops `token` if it is still the one held (a concurrent caller may have replaced it already). */
  invalidate(product: RailProduct, token: string): void {
    if (this.held.get(product)?.token === token) this.held.delete(product);
  }

  private async ask(product: RailProduct): Promise<string> {
    const { apiUser, apiKey, subscriptionKey } = this.credentials[product];
    const path = tokenPath(product);
    const answer = await this.http.send('POST', path, {
      authorization: `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`,
      [HEADER.subscriptionKey]: subscriptionKey,
      'content-length': '0',
    });
    if (answer.status === 401 || answer.status === 403) {
      throw new RailMisconfigured(
        `the partner refused our ${product} credentials (HTTP ${answer.status} on POST ${path}): check PARTNER_API_USER, PARTNER_API_KEY and PARTNER_SUBSCRIPTION_KEY (or their PARTNER_${product.toUpperCase()}_ forms)`,
        answer.status,
      );
    }
    if (answer.status !== 200) throw new RailUnavailable(`POST ${path}: HTTP ${answer.status}`, answer.status);
    const { access_token: token, expires_in: expiresIn } = (answer.json ?? {}) as { access_token?: unknown; expires_in?: unknown };
    const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn;
    if (typeof token !== 'string' || !token || typeof seconds !== 'number' || !(seconds > 0)) {
      throw new RailUnavailable(`POST ${path}: an answer without access_token and a positive expires_in`, answer.status);
    }
    const lifeMs = seconds * 1000;
    this.held.set(product, { token, renewAt: this.now() + lifeMs - Math.min(TOKEN_RENEW_MARGIN_MS, lifeMs / 10) });
    return token;
  }
}
