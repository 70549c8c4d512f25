import { isIdOf } from '../domain/ids';
import { SA } from '../domain/search-attributes';

/**
 * The list query of a bulk operator action (issue 31, finding 7): the operator's `--query`, never
 * concatenated unparsed. It is checked first (quotes closed, parentheses balanced and never closing
 * more than were opened, no comment outside a string, no backslash or control character), so
 * neither `A) OR (B` nor a comment hiding a parenthesis from this check can escape the clauses the
 * code adds: the workflow state the command acts on (never a closed run for an action on a running
 * one) and `--merchant`. The selection is checked again after listing (bulk-selection.ts).
 */

/** Which runs a command acts on: a running workflow, a completed one (a reversal's new run), or an ended one (a restart). */
export type RunState = 'running' | 'completed' | 'ended';

/** The Temporal `ExecutionStatus` values of each run state: in a list query, and as `status.name` spells them. */
export const RUN_STATE_STATUSES: Record<RunState, ReadonlyArray<{ query: string; name: string }>> = {
  running: [{ query: 'Running', name: 'RUNNING' }],
  completed: [{ query: 'Completed', name: 'COMPLETED' }],
  ended: [
    { query: 'Terminated', name: 'TERMINATED' },
    { query: 'Failed', name: 'FAILED' },
    { query: 'TimedOut', name: 'TIMED_OUT' },
    { query: 'Canceled', name: 'CANCELLED' },
  ],
};

/** Whether a run whose `status.name` is `statusName` is in `state`. */
export function runStateAccepts(state: RunState, statusName: string): boolean {
  return RUN_STATE_STATUSES[state].some((s) => s.name === statusName);
}

const QUOTES = new Set(["'", '"', '`']);
/** What opens (or closes) a comment in the SQL-like list query: refused outside a quoted string. */
const COMMENT_OPENERS = ['/*', '*/', '--', '#'] as const;

/** Why `query` cannot be used inside the code's clauses, or null. */
export function queryProblem(query: string): string | null {
  if (/[\u0000-\u001f\u007f]/.test(query.replace(/[\t\n\r]/g, ' '))) return '--query must not contain control characters';
  if (query.includes('\\')) return '--query must not contain a backslash';
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < query.length; i++) {
    const c = query[i]!;
    if (quote !== null) {
      // A doubled quote inside a string ('it''s') closes and reopens it: the same balance either way.
      if (c === quote) quote = null;
      continue;
    }
    // A comment hides what follows from the server's parser but not from this count (`/* ( */ A) OR (B /* ) */`):
    // outside a string, none is accepted (issue 43).
    const comment = COMMENT_OPENERS.find((opener) => query.startsWith(opener, i));
    if (comment !== undefined) return `--query must not contain a comment (${comment} at character ${i + 1}): a comment could hide a parenthesis and escape --merchant and the run state`;
    if (QUOTES.has(c)) quote = c;
    else if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth < 0) return `--query closes a parenthesis it never opened (at character ${i + 1}): it could escape --merchant and the run state; balance its parentheses`;
    }
  }
  if (quote !== null) return `--query has an unclosed ${quote} quote`;
  if (depth > 0) return `--query leaves ${depth} parenthesis${depth > 1 ? 'es' : ''} open`;
  if (/\border\s+by\b/i.test(stripQuoted(query))) return '--query must not contain ORDER BY (the selection is ordered by start time)';
  return null;
}

/** The query with the inside of every quoted string blanked (for keyword checks). */
function stripQuoted(query: string): string {
  return query.replace(/'[^']*'|"[^"]*"|`[^`]*`/g, "''");
}

/**
 * The list query of a bulk action: the run state the command acts on, the merchant when asked, and
 * the operator's query in parentheses. Throws a clear error for an empty, unbalanced or unsafe query
 * or a malformed merchant id.
 */
export function bulkQuery(query: string, merchantId?: string, state: RunState = 'running'): string {
  const trimmed = query.trim();
  if (!trimmed) throw new Error('--query must not be empty');
  const problem = queryProblem(trimmed);
  if (problem) throw new Error(problem);
  const clauses = [stateClause(state)];
  if (merchantId !== undefined) {
    if (!isIdOf('merchant', merchantId)) throw new Error('--merchant must be a merchant id (mer_…)');
    clauses.push(`${SA.MerchantId.name} = '${merchantId}'`);
  }
  return `${clauses.join(' AND ')} AND (${trimmed})`;
}

function stateClause(state: RunState): string {
  const statuses = RUN_STATE_STATUSES[state];
  return statuses.length === 1 ? `ExecutionStatus = '${statuses[0]!.query}'` : `ExecutionStatus IN (${statuses.map((s) => `'${s.query}'`).join(', ')})`;
}
