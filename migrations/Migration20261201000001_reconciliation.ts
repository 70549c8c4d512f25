import { Migration } from '@mikro-orm/migrations';

/**
 * Reconciliation against the partner's statement (issue 29; docs/operations.md, "Reconciliation"):
 *
 * - `partner_statements`: one row per imported statement, unique per (product, statement_date), so
 *   an import is idempotent per statement: a second import of the same day changes nothing.
 * - `partner_statement_lines`: the statement's lines as the partner wrote them, with the payment a
 *   line matched (by reference, through rail_references) when there is one.
 * - `reconciliation_breaks` (`brk_…`): each difference found, with its reason; `payment_id` is null
 *   when no payment of ours matches (missing_here). Open until an operator resolves it through the
 *   audited path (`reconcile resolve`, an operator_audit row with the state before and after).
 *   `amount` is in minor units (ours when we know the payment, else the partner's). `flagged_at`:
 *   when its payment was flagged for review (NeedsAttention), so a flag that failed is sent again.
 * - `rail_references.partner_transaction_id`: the partner's financialTransactionId, kept when a
 *   status or a statement line carries it (if not already added by 20261204000001).
 *
 * Frozen once landed.
 */
export class Migration20261201000001_reconciliation extends Migration {
  override name = 'Migration20261201000001_reconciliation';

  override up(): void {
    this.addSql(`alter table rail_references add column if not exists partner_transaction_id text null`);
    // The references a statement's day should list: those made that day, per product, in live.
    this.addSql(`create index rail_references_live_sent on rail_references (product, created_at) where environment = 'live'`);
    this.addSql(`create table partner_statements (
      id text primary key,
      product text not null check (product in ('collection', 'disbursement')),
      statement_date date not null,
      environment text not null default 'live' check (environment in ('sandbox', 'live')),
      source text not null check (length(source) between 1 and 300),
      line_count integer not null check (line_count >= 0),
      matched integer not null check (matched >= 0),
      imported_at timestamptz not null default now(),
      constraint partner_statements_day unique (product, statement_date))`);
    this.addSql(`create table partner_statement_lines (
      statement_id text not null references partner_statements(id),
      line_no integer not null,
      reference_id text not null,
      financial_transaction_id text null,
      external_id text null,
      amount text not null,
      amount_minor bigint null,
      currency text not null,
      status text not null,
      reason text null,
      party text null,
      partner_time text null,
      completed_at text null,
      payment_id text null,
      primary key (statement_id, line_no))`);
    this.addSql(`create index partner_statement_lines_reference on partner_statement_lines (reference_id)`);
    this.addSql(`create table reconciliation_breaks (
      id text primary key,
      statement_id text not null references partner_statements(id),
      product text not null check (product in ('collection', 'disbursement')),
      statement_date date not null,
      environment text not null default 'live' check (environment in ('sandbox', 'live')),
      kind text not null check (kind in ('missing_here', 'missing_there', 'amount_mismatch', 'currency_mismatch', 'status_mismatch', 'duplicate')),
      reference_id text not null,
      payment_id text null,
      merchant_id text null,
      amount bigint null,
      currency text null,
      partner_amount text null,
      partner_currency text null,
      partner_status text null,
      our_status text null,
      reason text not null,
      status text not null default 'open' check (status in ('open', 'resolved')),
      resolved_by text null,
      resolved_reason text null,
      resolved_at timestamptz null,
      flagged_at timestamptz null,
      created_at timestamptz not null default now(),
      check ((status = 'resolved') = (resolved_at is not null)),
      constraint reconciliation_breaks_once unique (statement_id, kind, reference_id))`);
    this.addSql(`create index reconciliation_breaks_created on reconciliation_breaks (created_at, id)`);
    this.addSql(`create index reconciliation_breaks_open on reconciliation_breaks (kind, currency) where status = 'open'`);
    this.addSql(`create index reconciliation_breaks_payment on reconciliation_breaks (payment_id) where payment_id is not null`);
  }
}
