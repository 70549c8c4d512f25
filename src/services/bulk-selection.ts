import type { OperatorInput } from './operator-input';
import type { BulkSelection, SelectedRow } from '../persistence/operators/bulk-selection-store';
import type { BulkPolicy } from './bulk-policy';
import { runStateAccepts, type RunState } from './bulk-query';

/**
 * The rules that bind a bulk `--yes` to its dry run (issue 31, findings 1 and 7), pure so the unit
 * tests can state them: a token serves the command it was made for, with the same options, once,
 * within BULK_TOKEN_TTL_MS; live money needs `--expect N`; a listing that strays outside `--merchant`
 * or the command's run state is refused whole.
 */

/** How long a dry run's token may be used: one hour (docs/operations.md, "In bulk"). */
export const BULK_TOKEN_TTL_MS = 60 * 60 * 1000;
/** A dry run selecting more is refused: narrow the query (at 5 a second, 10,000 actions take 33 minutes). */
export const MAX_BULK_SELECTION = 10_000;

/** A payment as the listing shows it. */
export interface ListedPayment extends SelectedRow {
  type: string;
  status: string | null;
  needs_attention: boolean;
  /** NeedsAttentionReason (`<kind>: <step>`), null when unset. */
  needs_attention_reason: string | null;
  workflow_status: string;
}

/** JSON with sorted keys: the same options give the same text whatever their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The command's options besides who and why: what the token binds (`charges resolve --as …`, `payments settle-late --action …`). */
export function bulkParams(input: OperatorInput): Record<string, unknown> {
  const { operator: _operator, reason: _reason, ...params } = input;
  return JSON.parse(JSON.stringify(params)) as Record<string, unknown>;
}

/** What `--yes --token` states, to be compared with what the token was made for. */
export interface TokenUse {
  command: string;
  params: Record<string, unknown>;
  /** The list query `--yes` would run, when it was given `--query` too. */
  query?: string | undefined;
  now: Date;
}

/** Why `selection` cannot serve this `--yes`, or null. Nothing has happened when it answers. */
export function tokenRefusal(selection: BulkSelection | null, token: string, use: TokenUse): string | null {
  if (!selection) return `token ${token} is unknown: run the command without --yes (a dry run) and pass the token it prints`;
  if (selection.command !== use.command) return `token ${token} was made for "${selection.command}", not "${use.command}": a token serves the command its dry run showed`;
  if (selection.usedAt) return `token ${token} was used already (${selection.usedAt.toISOString()} by ${selection.usedBy}, batch ${selection.batchId}): run a new dry run`;
  if (selection.expiresAt.getTime() <= use.now.getTime()) return `token ${token} expired at ${selection.expiresAt.toISOString()} (a token lasts an hour): run a new dry run`;
  if (use.query !== undefined && use.query !== selection.query) return `token ${token} was made for the query ${selection.query}, not ${use.query}`;
  if (canonicalJson(selection.params) !== canonicalJson(use.params)) {
    return `token ${token} was made with the options ${canonicalJson(selection.params)}, not ${canonicalJson(use.params)}: give the dry run's options`;
  }
  return null;
}

/**
 * Live money in bulk needs `--expect N`, N the number of live payments in the set; a given `--expect`
 * must match whatever the command. Null when `--yes` may go on.
 */
export function expectRefusal(command: string, policy: BulkPolicy, payments: readonly SelectedRow[], expect: number | undefined): string | null {
  const live = payments.filter((p) => p.environment === 'live').length;
  if (expect === undefined) {
    if (policy.movesMoney && live > 0) return `"${command}" moves live money: the set has ${live} live payment${live === 1 ? '' : 's'} (of ${payments.length}); repeat with --expect ${live} once you have checked them`;
    return null;
  }
  if (expect !== live) return `--expect ${expect} does not match: the set has ${live} live payment${live === 1 ? '' : 's'} (of ${payments.length}); nothing was done`;
  return null;
}

/**
 * Defence in depth behind the query's own clauses (finding 7): every listed row must be of
 * `merchantId` (when given) and in the command's run state. Throws, refusing the whole selection.
 */
export function checkListing(rows: readonly ListedPayment[], merchantId: string | undefined, state: RunState): void {
  const stray = rows.find((r) => merchantId !== undefined && r.merchant_id !== merchantId);
  if (stray) throw new Error(`the query selected ${stray.id} of ${stray.merchant_id ?? 'no merchant'}, outside --merchant ${merchantId}: refused, nothing was done`);
  const otherState = rows.find((r) => !runStateAccepts(state, r.workflow_status));
  if (otherState) throw new Error(`the query selected ${otherState.id}, whose workflow is ${otherState.workflow_status}: refused, nothing was done`);
}

export interface Breakdown {
  by_environment: Record<string, number>;
  /** Payments per merchant, most first (at most 50 merchants; the rest summed in `other_merchants`). */
  by_merchant: Record<string, number>;
  other_merchants?: { merchants: number; payments: number };
}

const MERCHANTS_SHOWN = 50;

export function breakdown(rows: readonly SelectedRow[]): Breakdown {
  const count = (key: (r: SelectedRow) => string) => {
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  };
  const merchants = count((r) => r.merchant_id ?? 'none');
  const out: Breakdown = { by_environment: Object.fromEntries(count((r) => r.environment ?? 'unknown')), by_merchant: Object.fromEntries(merchants.slice(0, MERCHANTS_SHOWN)) };
  const rest = merchants.slice(MERCHANTS_SHOWN);
  if (rest.length > 0) out.other_merchants = { merchants: rest.length, payments: rest.reduce((sum, [, n]) => sum + n, 0) };
  return out;
}

/**
 * The payments of a token's set an ids file names (issue 43: `--yes --ids-file` acted on ids no dry
 * run had tied to the command). The file may leave ids out (shortened by hand: act on fewer), never
 * add one: an id the dry run did not show refuses the whole run, naming the first few. In the dry
 * run's order. Throws; nothing has happened when it does.
 */
export function idsOfTheSet(selection: Pick<BulkSelection, 'payments'>, token: string, file: string, ids: readonly string[]): SelectedRow[] {
  const wanted = new Set(ids);
  const shown = new Set(selection.payments.map((p) => p.id));
  const strays = ids.filter((id) => !shown.has(id));
  if (strays.length > 0) {
    const named = strays.slice(0, 5).join(', ') + (strays.length > 5 ? ` and ${strays.length - 5} more` : '');
    throw new Error(`--ids-file ${file} names ${strays.length} payment${strays.length === 1 ? '' : 's'} that dry run ${token} did not show (${named}): an ids file may only leave ids out; run a new dry run for them. Nothing was done`);
  }
  return selection.payments.filter((p) => wanted.has(p.id));
}
