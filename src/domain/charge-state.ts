import type { ChargeRecord } from './charge';
import type { Channel, ChargeStatus } from './charge-status';
import type { Environment } from './environment';
import type { FailureClass } from './failure-classes';

/**
 * What a charge workflow needs of a charge, and all that goes into its history (activity results,
 * the query, the run's result): the state machine, the expiry and the search attributes. The
 * customer (masked identifier, name), description, references and metadata stay in the database:
 * activities return this projection, never the whole ChargeRecord.
 */
export interface ChargeState {
  id: string;
  merchantId: string;
  environment: Environment;
  status: ChargeStatus;
  amount: number;
  currency: string;
  channel: Channel;
  failureClass: FailureClass | null;
  expiresAt: string;
  /**
   * When the charge was written: the sandbox rail's timers count from it (issue 34), so a run that
   * starts late still answers at creation + three seconds or ten minutes. Absent in states recorded
   * before it was carried (histories of earlier runs).
   */
  createdAt?: string;
  updatedAt: string;
}

export function chargeState(record: ChargeState | ChargeRecord): ChargeState {
  return {
    id: record.id,
    merchantId: record.merchantId,
    environment: record.environment,
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    channel: record.channel,
    failureClass: record.failureClass,
    expiresAt: record.expiresAt,
    ...(record.createdAt === undefined ? {} : { createdAt: record.createdAt }),
    updatedAt: record.updatedAt,
  };
}

/** A charge in one of these states is finished: a charge workflow run for it moves nothing. */
export function isTerminalStatus(status: ChargeStatus): boolean {
  return status !== 'pending' && status !== 'awaiting_action';
}
