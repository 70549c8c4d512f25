import { Migration } from '@mikro-orm/migrations';

/**
 * Settlement batches (issue 11). A batch moves one merchant's available balance in one environment
 * and currency to its settlement bank account.
 *
 * - `merchants.settlement_bank_code` / `settlement_account_number`: the merchant's settlement
 *   account (`merchants set ID --settlement-bank CODE --settlement-account NUMBER`), set together or
 *   not at all. A merchant without one is never swept.
 * - `settlements`: one row per batch, written by the batch's sweep (src/persistence/settlements/settlement-store.ts:
 *   the row, the sweep transfer available -> reserved and `settlement.created` in one transaction),
 *   then only by its workflow (paid: reserved -> settlement_clearing; failed: reserved -> available).
 *   `destination_*` is the account as it was at the sweep (the API shows the number masked);
 *   `period_end` is when the sweep ran: the batch holds every available-balance posting committed
 *   before it. `run_id` is the settlement run that started it (null when started by hand).
 * - `settlement_entries`: marks each merchant_available ledger posting swept by a batch (the batch's
 *   own sweep posting included, so the postings not yet marked always add up to the available
 *   balance). The primary key (transfer_id, account) is the ledger entry's: a posting is swept at
 *   most once, so two batches never sweep the same money. `created_at` is the ledger entry's, kept
 *   here so `GET /v1/settlements/{id}/entries` walks the index newest first.
 *
 * Frozen once landed.
 */
export class Migration20261125000001_settlements extends Migration {
  override name = 'Migration20261125000001_settlements';

  override up(): void {
    this.addSql(`alter table merchants add column settlement_bank_code text null, add column settlement_account_number text null`);
    this.addSql(`alter table merchants add constraint merchants_settlement_account check ((settlement_bank_code is null) = (settlement_account_number is null))`);
    this.addSql(`create table settlements (
      id text primary key,
      merchant_id text not null references merchants(id),
      environment text not null check (environment in ('sandbox','live')),
      currency text not null,
      status text not null check (status in ('pending','paid','failed')),
      amount bigint not null check (amount > 0),
      entry_count integer not null check (entry_count >= 0),
      period_end timestamptz not null,
      destination_bank_code text not null,
      destination_account_number text not null,
      paid_at timestamptz null,
      failure_class text null,
      run_id text null,
      sandbox_outcome text null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((status = 'failed') = (failure_class is not null)),
      check ((status = 'paid') = (paid_at is not null)))`);
    this.addSql(`create index settlements_scope_created on settlements (merchant_id, environment, created_at desc, id desc)`);
    this.addSql(`create table settlement_entries (
      settlement_id text not null references settlements(id),
      transfer_id text not null,
      account text not null,
      created_at timestamptz not null,
      primary key (transfer_id, account),
      foreign key (transfer_id, account) references ledger_entries (transfer_id, account))`);
    this.addSql(`create index settlement_entries_batch on settlement_entries (settlement_id, created_at desc, transfer_id desc)`);
  }
}
