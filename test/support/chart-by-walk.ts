import type { Orm } from '../../src/persistence/orm';
import type { Caller } from '../../src/services/context';
import { CHART_DAYS, type ChartDay } from '../../src/web/portal/balances-chart';
import { walkBalanceTransactions } from '../../src/web/portal/balances-walk';

const DAY_MS = 86_400_000;

/**
 * The portal's 30-day chart as it was computed before issue 34 (src/web/portal/balances-chart.ts at
 * commit fa1fceb), kept for the tests that compare the snapshot-based chart with it: every balance
 * transaction of the window walked, page after page of the store; today's close the available
 * balance now, each earlier day's close the next day's close less the next day's net.
 */
export async function availableByDayByWalk(orm: Orm, caller: Caller, currency: string, availableNow: string, now: Date): Promise<ChartDay[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const start = today - (CHART_DAYS - 1) * DAY_MS;
  const days = Array.from({ length: CHART_DAYS }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
  const nets = new Map<string, bigint>(days.map((d) => [d, 0n]));
  for await (const item of walkBalanceTransactions(orm, caller, { currency, createdAfter: new Date(start - 1).toISOString() })) {
    const day = item.createdAt.slice(0, 10);
    if (item.balance === 'available' && nets.has(day)) nets.set(day, nets.get(day)! + item.net);
  }
  const out: ChartDay[] = [];
  let close = BigInt(availableNow);
  for (let i = days.length - 1; i >= 0; i--) {
    const net = nets.get(days[i])!;
    out.unshift({ day: days[i], net, close });
    close -= net;
  }
  return out;
}
