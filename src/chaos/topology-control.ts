import { readTopologyState } from '../topology/state';
import { runningTopology, topologyDown, topologyUp } from '../topology';

/** The chaos run's routes (issue 46): mobile money at MoMo, failing over to the aggregator; bank and cards at the aggregator. */
export const CHAOS_RAIL_ROUTES = 'mobile_money:*=momo|aggregator,bank:*=aggregator,card:*=aggregator';

/**
 * What the topology's APIs and workers need for a chaos run: webhooks to the in-process receiver
 * on 127.0.0.1 over http (sandbox only), retried within seconds rather than the production
 * schedule's minutes, so the run can wait for every delivery. The topology passes WEBHOOK_*
 * through to its pieces from the environment of `up`; TOPOLOGY_LINKS puts the links a partition cuts
 * between the workers and the service's PostgreSQL and between the APIs and Temporal.
 */
export const CHAOS_TOPOLOGY_ENV: Readonly<Record<string, string>> = {
  WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s,8s,15s,30s,30s,60s,60s,120s',
  // The links the partition fault cuts (src/topology/link.ts).
  TOPOLOGY_LINKS: '1',
  // worker-2 on a clock the clock_skew fault moves (src/topology/clock-skew.ts; needs scripts/install-faketime.sh).
  TOPOLOGY_CLOCK_SKEW: '1',
  // The partner's `0012` payments turn SUCCESSFUL after 4 minutes of PENDING, within a run (load-bodies.ts).
  FAKE_PARTNER_LATE_SUCCESS_MS: '240000',
  FAKE_PARTNER_LATE_PAYOUT_SUCCESS_MS: '240000',
  // Issue 46: mobile money may fail over from MoMo to the aggregator, so with the MoMo fake down or
  // declining (partner_down, partner_declining) new mobile-money payments are taken by the aggregator.
  RAIL_ROUTES: CHAOS_RAIL_ROUTES,
};

export interface EnsuredTopology {
  /** True when this run started it (and stops it at the end unless kept). */
  started: boolean;
}

/** Uses the topology of `dir` when it runs (in the mode asked), else starts one with `up`. */
export async function ensureTopology(dir: string, temporal: 'server' | 'dev', up: boolean, say: (line: string) => void): Promise<EnsuredTopology> {
  const running = runningTopology(dir);
  if (running) {
    if (running.mode !== temporal) throw new Error(`the topology in ${dir} runs with --temporal ${running.mode}, not ${temporal}: pass --temporal ${running.mode}, or stop it first`);
    return { started: false };
  }
  if (!up) throw new Error(`no topology runs in ${dir}: start one with \`npm run topology -- up --temporal ${temporal}\` (with ${Object.entries(CHAOS_TOPOLOGY_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}), or pass --up`);
  Object.assign(process.env, CHAOS_TOPOLOGY_ENV);
  say(`starting the topology (--temporal ${temporal}) in ${dir}`);
  await topologyUp({ temporal, dir, onProgress: (line) => say(`topology: ${line}`) });
  return { started: true };
}

export async function stopTopology(dir: string, say: (line: string) => void): Promise<void> {
  if (!readTopologyState(dir)) return;
  say(`stopping the topology in ${dir}`);
  await topologyDown(dir);
}
