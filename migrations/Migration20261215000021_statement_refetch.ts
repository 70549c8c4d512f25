import { Migration } from '@mikro-orm/migrations';

/**
 * Reconciliation that keeps looking (issue 43):
 *
 * - `partner_statements.partial`: a statement of a day not over yet (today, `reconcile run
 *   --partial`); it never locks the day: the next import of that day fetches it again.
 * - `partner_statements.pending_lines`: how many of its lines the partner still listed PENDING; a
 *   day with any is fetched again (the daily import, `reconcile run --date`) until every line is final.
 *   `fetch_count` and `fetched_at`: how often, and when last.
 * - the break kind `pending_at_partner`: a line still PENDING at the partner for a payment of ours
 *   still open (no longer counted as matched); closed by a later fetch that lists it final.
 * - `reconciliation_breaks.resolved_checked`: what the operator checked when resolving by hand.
 *
 * Existing statements get their PENDING lines counted, so their days are fetched again.
 * Frozen once landed.
 */
export class Migration20261215000021_statement_refetch extends Migration {
  override name = 'Migration20261215000021_statement_refetch';

  override up(): void {
    this.addSql(`alter table partner_statements
      add column partial boolean not null default false,
      add column pending_lines integer not null default 0 check (pending_lines >= 0),
      add column fetch_count integer not null default 1 check (fetch_count >= 1),
      add column fetched_at timestamptz null`);
    this.addSql(`update partner_statements s set pending_lines = (select count(*) from partner_statement_lines l where l.statement_id = s.id and l.status = 'PENDING')`);
    this.addSql(`create index partner_statements_unfinished on partner_statements (product, statement_date) where partial or pending_lines > 0`);
    this.addSql(`alter table reconciliation_breaks drop constraint if exists reconciliation_breaks_kind_check`);
    this.addSql(`alter table reconciliation_breaks add constraint reconciliation_breaks_kind_check
      check (kind in ('missing_here', 'missing_there', 'amount_mismatch', 'currency_mismatch', 'status_mismatch', 'duplicate', 'pending_at_partner'))`);
    this.addSql(`alter table reconciliation_breaks add column resolved_checked text null check (resolved_checked is null or length(resolved_checked) between 1 and 500)`);
  }
}
