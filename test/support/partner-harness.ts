import { randomBytes } from 'node:crypto';
import { startFakePartner, type FakePartner, type FakePartnerOptions } from '../../src/rail/fake-partner';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import type { PartnerConfig } from '../../src/rail/partner-config';
import type { PartnerRail } from '../../src/rail/partner-rail';
import type { Resolver } from '../../src/webhooks/url-policy';
import { startHarness, type Harness, type HarnessOptions } from './harness';

/** The harness with a live partner rail: the fake partner over real HTTP, its callbacks to the harness's live listener. */
export interface PartnerHarness {
  h: Harness;
  fake: FakePartner;
  adapter: MomoPartnerRail;
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
}

/**
 * Starts the fake partner, then the harness with a rail that forwards to the adapter, then the
 * adapter itself (its callback URLs point at the harness's live listener, known once it listens).
 */
export async function startPartnerHarness(options: PartnerHarnessOptions = {}): Promise<PartnerHarness> {
  const secret = randomBytes(32).toString('base64url');
  const fake = await startFakePartner({ approveAfterMs: 300, ...options.fake });
  let adapter: MomoPartnerRail | undefined;
  const forward: PartnerRail = { submit: (p, r) => adapter!.submit(p, r), status: (p, ref) => adapter!.status(p, ref) };
  const rail = options.wrapRail ? options.wrapRail(forward) : forward;
  const h = await startHarness({ rail, partnerCallbacks: { callbackSecret: secret }, ...(options.resolve ? { resolve: options.resolve } : {}), ...(options.queues ? { queues: options.queues } : {}) });
  adapter = new MomoPartnerRail({ ...fake.partnerConfig({ callbackBaseUrl: h.urls.live, callbackSecret: secret, timeoutMs: options.timeoutMs ?? 1_000 }), ...options.config });
  const started = adapter;
  return {
    h,
    fake,
    adapter: started,
    callbackSecret: secret,
    async close() {
      await h.close();
      await started.close();
      await fake.close();
    },
  };
}
