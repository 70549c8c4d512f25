import { randomBytes, randomUUID } from 'node:crypto';
import { HEADER } from '../../src/rail/momo-protocol';
import { PartnerHttp } from '../../src/rail/momo-http';
import { MomoTokens } from '../../src/rail/momo-token';
import { loadPartnerConfig, type PartnerConfig } from '../../src/rail/partner-config';
import type { RailProduct } from '../../src/rail/partner-rail';
import type { PartnerStatement } from '../../src/rail/momo-statement';
import { StatementClient } from '../../src/reconcile/statement-client';

/**
 * The fake partner that `npm start` runs, reached from a test over HTTP as any client would: its
 * port and credentials are fixed through FAKE_PARTNER_PORT and FAKE_PARTNER_API_USER/_API_KEY/
 * _SUBSCRIPTION_KEY (src/runtime/live-partner.ts), its statement read with the engine's own
 * StatementClient, and its test controls (`/{product}/_fake/…`, src/rail/fake-partner/control.ts)
 * called with a token like every other call.
 */
export interface RemoteFakePartner {
  /** The environment that makes `npm start` run the fake partner this way. */
  env: Record<string, string>;
  statement(product: RailProduct, date: string): Promise<PartnerStatement>;
  control(product: RailProduct, path: string, body: unknown): Promise<number>;
  close(): Promise<void>;
}

export function remoteFakePartner(port: number): RemoteFakePartner {
  const env = { FAKE_PARTNER_PORT: String(port), FAKE_PARTNER_API_USER: randomUUID(), FAKE_PARTNER_API_KEY: randomBytes(16).toString('hex'), FAKE_PARTNER_SUBSCRIPTION_KEY: randomBytes(16).toString('hex') };
  const config: PartnerConfig = loadPartnerConfig({
    PARTNER_BASE_URL: `http://127.0.0.1:${port}`,
    PARTNER_API_USER: env.FAKE_PARTNER_API_USER,
    PARTNER_API_KEY: env.FAKE_PARTNER_API_KEY,
    PARTNER_SUBSCRIPTION_KEY: env.FAKE_PARTNER_SUBSCRIPTION_KEY,
    PARTNER_TARGET_ENVIRONMENT: 'sandbox',
    PARTNER_CALLBACK_BASE_URL: 'http://127.0.0.1:9',
    PARTNER_CALLBACK_SECRET: randomBytes(32).toString('base64url'),
  })!;
  const statements = new StatementClient(config);
  const http = new PartnerHttp(config.baseUrl, 5_000, 2);
  const tokens = new MomoTokens(http, config.credentials);
  return {
    env,
    statement: (product, date) => statements.fetch(product, date),
    async control(product, path, body) {
      const token = await tokens.get(product);
      const response = await fetch(`${config.baseUrl}/${product}/_fake/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, [HEADER.subscriptionKey]: config.credentials[product].subscriptionKey, [HEADER.targetEnvironment]: config.targetEnvironment, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await response.arrayBuffer();
      return response.status;
    },
    async close() {
      await statements.close();
      await http.close();
    },
  };
}
