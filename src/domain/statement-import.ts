import type { ImportSummary } from './break-kinds';

/** Which partner product a statement covers (src/rail/partner-rail.ts RailProduct). */
type RailProduct = 'collection' | 'disbursement';

/**
 * The statement import workflow's contract (workflows/statement-import.ts; pure, so the workflow
 * bundle can import it): which statements, and what it answers.
 */
export const STATEMENT_IMPORT_WORKFLOW_TYPE = 'statementImportWorkflow';

export interface StatementImportInput {
  /** The UTC day, YYYY-MM-DD; default: the day before the workflow's start (yesterday). */
  date?: string;
  /** Default: both. */
  products?: RailProduct[];
}

export interface StatementImportResult {
  date: string;
  imports: ImportSummary[];
}

/** The activity's input: one statement. */
export interface StatementImportRequest {
  product: RailProduct;
  date: string;
}

/** The UTC day before `now`, YYYY-MM-DD. */
export function dayBefore(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1)).toISOString().slice(0, 10);
}

/** An import activity's error when no partner is configured (not retried). */
export const NO_PARTNER_CONFIGURED = 'NoPartnerConfigured';
/** An import activity's error for a statement it cannot read (not retried: a person must look). */
export const STATEMENT_UNREADABLE = 'StatementUnreadable';
