import { apiRequest } from './api-client';
import type { RequestLog } from './request-log';
import type { ChaosMerchant } from './setup';

/**
 * Sends requests continuously through faults, so that every outage is seen from a client's side:
 * `/health` on both API ports, and a read on each (the sandbox balance, the live charges list), a
 * round every `everyMs`, each recorded (status, Retry-After, latency) in the run's request log.
 * A probe that hangs does not stop the next round: each runs on its own.
 */
export class Prober {
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly log: RequestLog,
    private readonly ports: { sandbox: number; live: number },
    private readonly merchant: ChaosMerchant,
    private readonly everyMs = 1_000,
  ) {}

  start(): void {
    const round = () => {
      const probes = [
        apiRequest(this.log, 'probe', this.ports.sandbox, 'GET', '/health'),
        apiRequest(this.log, 'probe', this.ports.live, 'GET', '/health'),
        apiRequest(this.log, 'probe', this.ports.sandbox, 'GET', '/v1/balances', { key: this.merchant.testKey }),
        apiRequest(this.log, 'probe', this.ports.live, 'GET', '/v1/charges?limit=1', { key: this.merchant.liveKey }),
      ];
      for (const p of probes) {
        this.inFlight.add(p);
        void p.finally(() => this.inFlight.delete(p));
      }
    };
    this.timer = setInterval(round, this.everyMs);
    round();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }
}
