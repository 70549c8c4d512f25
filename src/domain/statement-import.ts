import type { ImportSummary } from './break-kinds';
import type { PartnerName } from './rail-routes';

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
  /**
   * Whose statements (issue 45), each partner's products in turn. Absent (every run started before
   * partners were named, and a Schedule not yet brought up to date): MoMo's only, its activity
   * requests without a partner, exactly as before.
   */
  partners?: PartnerName[];
  /**
   * With `partners`: a partner the worker has no settings for is left out (its import answers null)
   * instead of failing the run; the run fails (NoPartnerConfigured) only when none is configured.
   * `reconcile run` without settings of its own asks the worker's partners this way.
   */
  configuredOnly?: boolean;
}

export interface StatementImportResult {
  date: string;
  imports: ImportSummary[];
}

/** The activity's input: one statement. */
export interface StatementImportRequest {
  product: RailProduct;
  date: string;
  /** Whose statement; absent (a request from before issue 45): MoMo's. */
  partner?: PartnerName;
  /** True: a partner the worker has no settings for answers null instead of failing (StatementImportInput.configuredOnly). */
  configuredOnly?: boolean;
}

/** The partner of an import request: MoMo's when it names none (the requests recorded before issue 45). */
export function requestPartner(request: Pick<StatementImportRequest, 'partner'>): PartnerName {
  return request.partner ?? 'momo';
}

/** The UTC day before `now`, YYYY-MM-DD. */
export function dayBefore(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1)).toISOString().slice(0, 10);
}

/** An import activity's error when no partner is configured (not retried). */
export const NO_PARTNER_CONFIGURED = 'NoPartnerConfigured';
/** An import activity's error for a statement it cannot read (not retried: a person must look). */
export const STATEMENT_UNREADABLE = 'StatementUnreadable';
