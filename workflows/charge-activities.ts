import { proxyLocalActivities } from '@temporalio/workflow';
import type { ChargeActivities } from '../activities/types';
import type { ChargeRecord } from '../src/domain/charge';
import type { ChargeTransitionRequest } from '../src/domain/charge';
import type { BegunCharge } from '../src/domain/charge-start';
import type { ChargeState } from '../src/domain/charge-state';
import type { CardWindow } from '../src/domain/live-card';
import { dbStepOptions } from './db-step-options';

/**
 * Database steps run as local activities: one short transaction each, no extra round trip through
 * the server. They are idempotent, so a retry after a worker crash writes nothing twice.
 *
 * Retries are bounded (src/domain/charge-attention.ts: 40 attempts over about 16 minutes, 30 minutes
 * at most): a database outage of a few minutes is ridden out, a persistent failure gives up instead
 * of growing the history until Temporal terminates the run. The charge workflow then asks an
 * operator (NeedsAttention). Refusals by the charge's rules and database errors the same input would
 * raise again (`DeterministicDatabaseError`, src/persistence/db-errors.ts) are not retried at all.
 */
const OPTIONS = dbStepOptions(['TransitionRefusedError', 'ChargeNotFoundError', 'DeterministicDatabaseError']);

const db = proxyLocalActivities<ChargeActivities>(OPTIONS);

export function beginCharge(chargeId: string): Promise<BegunCharge> {
  return db.beginCharge.executeWithOptions({ ...OPTIONS, summary: 'begin charge: load the record the API wrote, mark the workflow started' }, [chargeId]);
}

export function recordAccepted(draft: ChargeRecord): Promise<ChargeRecord> {
  return db.recordAcceptedCharge.executeWithOptions(
    { ...OPTIONS, summary: 'record charge: projection, pending hold, transaction.created' },
    [draft],
  );
}

export function applyTransition(request: ChargeTransitionRequest): Promise<ChargeState> {
  const what = request.failureClass ? `${request.to} (${request.failureClass})` : request.to;
  return db.applyChargeTransition.executeWithOptions({ ...OPTIONS, summary: `charge -> ${what}: projection, ledger, event` }, [request]);
}

export function readCardWindow(request: { chargeId: string; close: boolean }): Promise<CardWindow> {
  return db.readCardWindow.executeWithOptions({ ...OPTIONS, summary: request.close ? 'card: close the window unless the page sent the card' : 'card: read the page’s submission' }, [request]);
}
