import { Migration } from '@mikro-orm/migrations';

/**
 * Reconciliation per partner (issue 45, "Live on every channel"): live money goes through two
 * partners (MoMo and the aggregator), each with its own daily statement per product.
 *
 * - `partner_statements.partner` (`momo` | `aggregator`): whose statement it is; every statement
 *   imported before is MoMo's (the only partner there was). The day is unique per (partner, product,
 *   statement_date): MoMo's and the aggregator's statements of one day are separate rows, each
 *   imported, refetched and locked on its own. The index of unfinished days (20261215000021) is
 *   keyed by partner too.
 * - `reconciliation_breaks.partner`: the partner of the statement that found the break (its
 *   statement's), so `reconcile breaks` and the open-breaks gauge name it without a join.
 *
 * Both columns have a constant default: adding them rewrites no row (PostgreSQL 11+).
 * Frozen once landed.
 */
export class Migration20261216000004_statements_per_partner extends Migration {
  override name = 'Migration20261216000004_statements_per_partner';

  override up(): void {
    this.addSql(`alter table partner_statements add column if not exists partner text not null default 'momo' check (partner in ('momo', 'aggregator'))`);
    this.addSql(`alter table partner_statements drop constraint if exists partner_statements_day`);
    this.addSql(`alter table partner_statements add constraint partner_statements_day unique (partner, product, statement_date)`);
    this.addSql(`drop index if exists partner_statements_unfinished`);
    this.addSql(`create index partner_statements_unfinished on partner_statements (partner, product, statement_date) where partial or pending_lines > 0`);
    this.addSql(`alter table reconciliation_breaks add column if not exists partner text not null default 'momo' check (partner in ('momo', 'aggregator'))`);
    this.addSql(`create index if not exists reconciliation_breaks_open_partner on reconciliation_breaks (partner, kind) where status = 'open'`);
  }
}
