/**
 * The kinds of reconciliation break (issue 29, pinned; docs/operations.md, "Reconciliation").
 * `pending_at_partner` (issue 43): a line the partner still lists PENDING for a payment of ours still
 * open; the day is fetched again until a later statement lists it final, which closes it.
 */
export const BREAK_KINDS = ['missing_here', 'missing_there', 'amount_mismatch', 'currency_mismatch', 'status_mismatch', 'duplicate', 'pending_at_partner'] as const;
export type BreakKind = (typeof BREAK_KINDS)[number];

export function isBreakKind(text: unknown): text is BreakKind {
  return typeof text === 'string' && (BREAK_KINDS as readonly string[]).includes(text);
}

/** Every kind at zero: the `breaks` object of a summary always names them all. */
export function zeroBreakCounts(): Record<BreakKind, number> {
  return Object.fromEntries(BREAK_KINDS.map((k) => [k, 0])) as Record<BreakKind, number>;
}

/** What an import prints (`reconcile run`, `reconcile import`): the pinned `{date, lines, matched, breaks}`. */
export interface ImportSummary {
  date: string;
  /** Whose statement (issue 45): `momo` or `aggregator`; absent from the results of runs from before. */
  partner?: 'momo' | 'aggregator';
  product: 'collection' | 'disbursement';
  lines: number;
  matched: number;
  breaks: Record<BreakKind, number>;
  /** True when this statement had been imported before, final: nothing changed, the stored counts. */
  already_imported: boolean;
  /** A statement of a day not over yet (today): it does not lock the day; the next import fetches it again. */
  partial?: boolean;
  /** Its lines the partner still lists PENDING: the day is fetched again until none is. */
  pending_lines?: number;
  /** A statement imported before and fetched again (partial, or with PENDING lines): breaks no longer found were closed. */
  refetched?: boolean;
  /** Breaks of this statement a refetch no longer found, closed (resolved by `reconciliation`). */
  closed_breaks?: number;
  /** Earlier days of the product fetched again by this import (partial, or with PENDING lines). */
  earlier_days?: Array<{ date: string; pending_lines?: number; closed_breaks?: number; error?: string }>;
}
