import { randomBytes } from 'node:crypto';
import { startFakePartner, type FakePartner, type FakePartnerOptions } from '../../src/rail/fake-partner';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import type { PartnerConfig } from '../../src/rail/partner-config';
import type { PartnerRail } from '../../src/rail/partner-rail';
import type { Resolver } from '../../src/webhooks/url-policy';
import { startHarness, type Harness, type HarnessOptions } from './harness';
import { AggregatorRail } from '../../src/rail/aggregator/adapter';
import { AggregatorCards } from '../../src/rail/aggregator/card';
import { startFakeAggregator, type FakeAggregator, type FakeAggregatorOptions } from '../../src/rail/aggregator/fake';
import { AGGREGATOR_WEBHOOK_ROUTE } from '../../src/rail/aggregator/webhook-route';
import { RoutedRail } from '../../src/rail/routed-rail';
import { partnerOfReference } from '../../src/persistence/partner/reference-partner-store';
import { parseRailRoutes } from '../../src/domain/rail-routes';

/** The harness with a live partner rail: the fake partner over real HTTP, its callbacks to the harness's live listener. */
export interface PartnerHarness {
  h: Harness;
  fake: FakePartner;
  adapter: MomoPartnerRail;
  /** The fake aggregator (issue 45), when the options asked for one: then the workers' rail routes each reference to its partner. */
  aggregator?: FakeAggregator;
  /** The secret the partner's callback URLs are signed with (PARTNER_CALLBACK_SECRET). */
  callbackSecret: string;
  /** Stops the harness (its ledger check first), the adapter and the fake partner. */
  close(): Promise<void>;
}

export interface PartnerHarnessOptions {
  fake?: FakePartnerOptions;
  /** The adapter's PARTNER_TIMEOUT_MS (default 1000). */
  timeoutMs?: number;
  /** Changes to the adapter's configuration (another target environment, say). */
  config?: Partial<PartnerConfig>;
  resolve?: Resolver;
  /** Stands between the workers and the adapter (a test that loses an answer, say). */
  wrapRail?: (rail: PartnerRail) => PartnerRail;
  /** The harness's queues (test/support/harness.ts `queues`; default HARNESS_QUEUES). */
  queues?: HarnessOptions['queues'];
  /**
   * Issue 45: a fake aggregator beside the fake partner, its webhooks to the live listener, the rail
   * routing each reference to its partner, and these routes (RAIL_ROUTES' text).
   */
  aggregator?: { fake?: FakeAggregatorOptions; routes: string };
}

/**
 * Starts the fake partner, then the harness with a rail that forwards to the adapter, then the
 * adapter itself (its callback URLs point at the harness's live listener, known once it listens).
 */
export async function startPartnerHarness(options: PartnerHarnessOptions = {}): Promise<PartnerHarness> {
  const secret = randomBytes(32).toString('base64url');
  const fake = await startFakePartner({ approveAfterMs: 300, ...options.fake });
  const aggregator = options.aggregator ? await startFakeAggregator({ approveAfterMs: 300, ...options.aggregator.fake }) : undefined;
  let adapter: MomoPartnerRail | undefined;
  let harness: Harness | undefined;
  const momo: PartnerRail = { submit: (p, r) => adapter!.submit(p, r), status: (p, ref) => adapter!.status(p, ref) };
  const aggregatorRail = aggregator ? new AggregatorRail(aggregator.config({ timeoutMs: options.timeoutMs ?? 1_000 })) : undefined;
  const forward: PartnerRail = aggregatorRail ? new RoutedRail({ momo, aggregator: aggregatorRail }, (ref) => partnerOfReference(harness!.orm, ref)) : momo;
  const rail = options.wrapRail ? options.wrapRail(forward) : forward;
  const h = await startHarness({
    rail,
    partnerCallbacks: { callbackSecret: secret },
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.queues ? { queues: options.queues } : {}),
    ...(aggregator && options.aggregator ? { railRoutes: parseRailRoutes(options.aggregator.routes), aggregatorWebhooks: { webhookHash: aggregator.webhookHash } } : {}),
  });
  harness = h;
  // Live cards (issue 45): the hosted page's calls to the aggregator, as src/main.ts makes them.
  const cards = aggregator ? new AggregatorCards(aggregator.config({ timeoutMs: options.timeoutMs ?? 1_000 })) : undefined;
  if (cards) h.deps.cardPayments = cards;
  aggregator?.setWebhookUrl(`${h.urls.live}${AGGREGATOR_WEBHOOK_ROUTE}`);
  adapter = new MomoPartnerRail({ ...fake.partnerConfig({ callbackBaseUrl: h.urls.live, callbackSecret: secret, timeoutMs: options.timeoutMs ?? 1_000 }), ...options.config });
  const started = adapter;
  return {
    h,
    fake,
    adapter: started,
    ...(aggregator ? { aggregator } : {}),
    callbackSecret: secret,
    async close() {
      await h.close();
      await started.close();
      await aggregatorRail?.close();
      await cards?.close();
      await fake.close();
      await aggregator?.close();
    },
  };
}
