/** The kinds of reconciliation break (issue 29, pinned; docs/operations.md, "Reconciliation"). */
export const BREAK_KINDS = ['missing_here', 'missing_there', 'amount_mismatch', 'currency_mismatch', 'status_mismatch', 'duplicate'] as const;
export type BreakKind = (typeof BREAK_KINDS)[number];

export function isBreakKind(text: unknown): text is BreakKind {
  return typeof text === 'string' && (BREAK_KINDS as readonly string[]).includes(text);
}

/** Every kind at zero: the `breaks` object of a summary always names all six. */
export function zeroBreakCounts(): Record<BreakKind, number> {
  return Object.fromEntries(BREAK_KINDS.map((k) => [k, 0])) as Record<BreakKind, number>;
}

/** What an import prints (`reconcile run`, `reconcile import`): the pinned `{date, lines, matched, breaks}`. */
export interface ImportSummary {
  date: string;
  product: 'collection' | 'disbursement';
  lines: number;
  matched: number;
  breaks: Record<BreakKind, number>;
  /** True when this statement had been imported before: nothing changed, the stored counts. */
  already_imported: boolean;
}
