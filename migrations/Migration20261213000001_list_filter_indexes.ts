import { Migration } from '@mikro-orm/migrations';

/**
 * The filters of the lists read an index, not the merchant's whole history (issue 34, "A million rows
 * per merchant"; the plans before and after: docs/benchmarks.md, "A million rows per merchant"):
 *
 * - `<table>_scope_status_created`: every payment list's `status` filter (GET /v1/charges|payouts|
 *   refunds|disputes|settlements?status=…, the portal's Payments tabs), in the list's own order, so a
 *   rare status (a pending charge among 468,000) is one index range, not a scan of every row of the
 *   merchant; `<table>_scope_channel_created` the same for `channel` (charges, payouts);
 * - `<table>_scope_reference`: the `reference` filter (the merchant's own reference), an exact match;
 * - `ledger_entries_merchant_kind`: the balance transactions' `type` filter, the kinds of the type
 *   (src/domain/balance-transaction.ts) on the merchant's balances, so a type with few postings
 *   (settlement, dispute, payout_reversal) reads those, not the whole balance history;
 * - `charges_open_expiry`: the reconciler's and `payments stuck`'s overdue charges (open charges by
 *   expiry, all merchants, src/runtime/charge-reconciler.ts), instead of a scan of every charge;
 * - `payouts_open_created`, `refunds_open_created`, `disputes_open_created`: `payments stuck`'s
 *   unfinished records (src/persistence/unfinished-records.ts), oldest first, the open ones only.
 *
 * Built at start-up in the migration's transaction. On a large table build them beforehand with
 * `create index concurrently <the same definition>`: these statements then find them and do nothing.
 *
 * Frozen once landed.
 */
export const LIST_FILTER_INDEXES: readonly string[] = [
  ...['charges', 'payouts', 'refunds', 'disputes', 'settlements'].map(
    (table) => `create index if not exists ${table}_scope_status_created on ${table} (merchant_id, environment, status, created_at desc, id desc)`,
  ),
  ...['charges', 'payouts'].map((table) => `create index if not exists ${table}_scope_channel_created on ${table} (merchant_id, environment, channel, created_at desc, id desc)`),
  ...['charges', 'payouts'].map((table) => `create index if not exists ${table}_scope_reference on ${table} (merchant_id, environment, your_reference)`),
  `create index if not exists ledger_entries_merchant_kind on ledger_entries (merchant_id, environment, kind, created_at desc, transfer_id desc, account desc)
     where account in ('merchant_available', 'merchant_reserved')`,
  `create index if not exists charges_open_expiry on charges (expires_at, id) where status in ('pending', 'awaiting_action')`,
  `create index if not exists payouts_open_created on payouts (created_at) where status in ('pending', 'held_for_review')`,
  `create index if not exists refunds_open_created on refunds (created_at) where status = 'pending'`,
  `create index if not exists disputes_open_created on disputes (created_at) where status in ('needs_response', 'under_review')`,
];

export class Migration20261213000001_list_filter_indexes extends Migration {
  override name = 'Migration20261213000001_list_filter_indexes';

  override up(): void {
    for (const statement of LIST_FILTER_INDEXES) this.addSql(statement);
  }
}
