import type { ChargeRecord } from './charge';

/**
 * Input of a charge workflow started by the API after it wrote the charge (or by the charge-start
 * relay): the id only. The workflow reads everything else from the database (beginCharge), so a run
 * started for a charge the API never wrote refuses to run. Older runs got the whole draft
 * (ChargeDraft, by update-with-start); the workflow tells the two apart by this shape.
 */
export interface ChargeStart {
  chargeId: string;
}

export function isChargeStart(input: object): input is ChargeStart {
  return typeof (input as Partial<ChargeStart>).chargeId === 'string' && !('id' in input);
}

/** What the charge workflow's first step returns: the record the API wrote and its sandbox switch. */
export interface BegunCharge {
  charge: ChargeRecord;
  sandboxOutcome: string | null;
}

/** `metadata.sandbox_outcome` as stored with the charge (the same rule as the API's draft). */
export function sandboxOutcomeOf(metadataJson: string): string | null {
  const metadata = JSON.parse(metadataJson) as Record<string, unknown> | null;
  const outcome = metadata && typeof metadata === 'object' ? metadata.sandbox_outcome : undefined;
  return typeof outcome === 'string' ? outcome : null;
}

/** Error type (and message start) of a charge workflow started for a charge that was never written. */
export const CHARGE_NOT_FOUND = 'ChargeNotFoundError';
