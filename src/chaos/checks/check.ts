import type { ChaosDb } from '../db';
import type { InjectedFault } from '../faults';
import type { ChaosReceiver } from '../receiver';
import type { RequestLog } from '../request-log';
import type { ChaosMerchant } from '../setup';
import type { PartnerLines } from '../partner-records';

/** What one check found: how many things it looked at, and each violation in one line. */
export interface CheckResult {
  name: string;
  checked: number;
  /** The number of violations (the lines below keep at most MAX_LINES). */
  violationCount: number;
  violations: string[];
  /** Figures worth printing that are not violations. */
  notes: string[];
}

/** Everything a check may read once the run is over. */
export interface CheckContext {
  db: ChaosDb;
  dir: string;
  merchants: ChaosMerchant[];
  receiver: ChaosReceiver;
  log: RequestLog;
  faults: InjectedFault[];
  /**
   * The fake partner's statement lines of the run's days, read when called: after our own records,
   * so that everything we hold was there before (rejects when it cannot be read).
   */
  readPartner: () => Promise<PartnerLines>;
}

export const merchantIds = (ctx: CheckContext) => ctx.merchants.map((m) => m.id);

/** At most this many violation lines per check are kept (the count is exact). */
export const MAX_LINES = 50;

export function result(name: string, checked: number, violations: string[], notes: string[] = []): CheckResult {
  const shown = violations.length > MAX_LINES ? [...violations.slice(0, MAX_LINES), `… and ${violations.length - MAX_LINES} more`] : violations;
  return { name, checked, violationCount: violations.length, violations: shown, notes };
}
