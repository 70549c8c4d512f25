import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RailProduct } from '../partner-rail';

/** The credentials the fake partner accepts (one set for both products). */
export interface FakeCredentials {
  apiUser: string;
  apiKey: string;
  subscriptionKey: string;
}

export function randomCredentials(): FakeCredentials {
  return { apiUser: randomUUID(), apiKey: randomBytes(16).toString('hex'), subscriptionKey: randomBytes(16).toString('hex') };
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/**
 * The fake's side of MoMo's authentication: the token endpoint takes Basic apiUser:apiKey and the
 * subscription key; every other call takes a live bearer token of its product and the subscription key.
 */
export class FakeAuth {
  private readonly tokens = new Map<string, { product: RailProduct; expiresAt: number }>();

  constructor(private readonly credentials: FakeCredentials, private readonly tokenTtlSeconds: number) {}

  /** A new token for `product`, or null when the headers do not carry our credentials. */
  issue(product: RailProduct, headers: IncomingHttpHeaders): { access_token: string; token_type: string; expires_in: number } | null {
    if (!same(header(headers, 'ocp-apim-subscription-key'), this.credentials.subscriptionKey)) return null;
    const basic = /^Basic\s+(.+)$/i.exec(header(headers, 'authorization'))?.[1];
    if (!basic || !same(Buffer.from(basic, 'base64').toString('utf8'), `${this.credentials.apiUser}:${this.credentials.apiKey}`)) return null;
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, { product, expiresAt: Date.now() + this.tokenTtlSeconds * 1000 });
    return { access_token: token, token_type: 'access_token', expires_in: this.tokenTtlSeconds };
  }

  /** Whether a call to `product` carries a live token of that product and the subscription key. */
  allows(product: RailProduct, headers: IncomingHttpHeaders): boolean {
    if (!same(header(headers, 'ocp-apim-subscription-key'), this.credentials.subscriptionKey)) return false;
    const bearer = /^Bearer\s+(.+)$/i.exec(header(headers, 'authorization'))?.[1];
    const held = bearer ? this.tokens.get(bearer) : undefined;
    return !!held && held.product === product && Date.now() < held.expiresAt;
  }

  /** Every token issued so far stops working (the partner revoked them early). */
  revokeAll(): void {
    this.tokens.clear();
  }
}
