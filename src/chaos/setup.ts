import { apiRequest } from './api-client';
import { runCli } from './cli-runner';
import type { ChaosReceiver } from './receiver';
import type { Rng } from './random';
import type { RequestLog } from './request-log';

/** A merchant of the run, with its keys and its sandbox webhook endpoint. */
export interface ChaosMerchant {
  id: string;
  testKey: string;
  liveKey: string;
  /** Its sandbox endpoint subscribed to every event (live endpoints must be public https: none here). */
  endpointId: string;
  /** The receiver path name of that endpoint. */
  endpointName: string;
}

export interface SetupDeps {
  dir: string;
  log: RequestLog;
  receiver: ChaosReceiver;
  ports: { sandbox: number; live: number };
}

/** How many merchants share the load (each has its own event sequences and balances). */
export const MERCHANTS = 2;

/**
 * The run's merchants, through the operator's CLI (create, verify for live, a settlement account,
 * live limits wide enough for the load, payouts under the review threshold), and one sandbox
 * webhook endpoint each through the API, subscribed to every event, pointed at the receiver.
 */
export async function setUpMerchants(deps: SetupDeps, rng: Rng, seed: number): Promise<ChaosMerchant[]> {
  const merchants: ChaosMerchant[] = [];
  for (let i = 1; i <= MERCHANTS; i++) {
    const created = (await runCli(deps.dir, ['merchants', 'create', '--name', `Chaos ${seed} #${i}`, '--operator', 'chaos'])) as { id: string; test_key: string; live_key: string };
    await runCli(deps.dir, ['merchants', 'verify', created.id, '--reason', `chaos run ${seed}`, '--operator', 'chaos']);
    await runCli(deps.dir, [
      'merchants', 'set', created.id,
      '--settlement-bank', 'GCB', '--settlement-account', `00${rng.int(1_000_000_000, 1_999_999_999)}`,
      '--payout-review-threshold', '100000000',
      '--live-max-amount', 'GHS:10000000', '--live-daily-limit', 'GHS:10000000000',
      '--reason', `chaos run ${seed}`, '--operator', 'chaos',
    ]);
    const endpointName = `m${i}`;
    const endpoint = await apiRequest(deps.log, 'load', deps.ports.sandbox, 'POST', '/v1/webhook-endpoints', {
      key: created.test_key,
      body: { url: deps.receiver.endpointUrl(endpointName), subscribed_events: [], description: `chaos ${seed}`, timeout_seconds: 2 },
    });
    const ep = endpoint.body as { id?: string; secret?: string };
    if (endpoint.status !== 201 || !ep.id || !ep.secret) {
      throw new Error(
        `could not subscribe a webhook endpoint at ${deps.receiver.endpointUrl(endpointName)}: ${endpoint.status} ${JSON.stringify(endpoint.body)}. ` +
          'The topology must run its APIs and workers with WEBHOOK_ALLOW_PRIVATE_HOSTS=127.0.0.1 and WEBHOOK_ALLOW_HTTP=true (the chaos run sets them when it starts the topology with --up).',
      );
    }
    deps.receiver.setSecret(endpointName, ep.secret);
    merchants.push({ id: created.id, testKey: created.test_key, liveKey: created.live_key, endpointId: ep.id, endpointName });
  }
  return merchants;
}
