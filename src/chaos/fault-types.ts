import type { ChaosReceiver } from './receiver';
import type { RequestLog } from './request-log';
import type { FaultKind } from './schedule';
import type { TopologyView } from './topology-view';

/** A fault as injected, with how long everything took to come back. */
export interface InjectedFault {
  n: number;
  kind: FaultKind;
  target: string | null;
  /** The processes signalled. */
  pids: number[];
  startedAt: number;
  /** When the fault was lifted (a kill: at once; a pause, a bad spell, an outage: after its hold). */
  liftedAt: number;
  /** When everything was healthy again (null: not within the bound). */
  recoveredAt: number | null;
  /** Seconds from the fault's start to recovery (null: not recovered). */
  recoveryS: number | null;
  /** For a kill: the piece came back with another pid (the supervisor restarted it). */
  restarted: boolean | null;
  note: string | null;
}

/** What every fault's injector uses (faults.ts, recovery.ts, rollover.ts). */
export interface InjectorDeps {
  topology: TopologyView;
  log: RequestLog;
  receiver: ChaosReceiver;
  /** The longest a recovery may take before it counts as not recovered. */
  recoveryLimitS: number;
  say: (line: string) => void;
}
