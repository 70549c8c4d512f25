import { Migration } from '@mikro-orm/migrations';

/** Merchants, keys, charges, ledger, event log and idempotency keys. Frozen once landed. */
export class Migration20261122000001_initial_schema extends Migration {
  override name = 'Migration20261122000001_initial_schema';

  override up(): void {
    this.addSql(`create table merchants (
      id text primary key,
      name text not null,
      verified_at timestamptz null,
      created_at timestamptz not null default now())`);
    this.addSql(`create table api_keys (
      id text primary key,
      merchant_id text not null references merchants(id),
      environment text not null check (environment in ('sandbox','live')),
      secret_hash text not null unique,
      display text not null,
      scopes text[] not null,
      revoked_at timestamptz null,
      created_at timestamptz not null default now())`);
    this.addSql(`create table charges (
      id text primary key,
      merchant_id text not null references merchants(id),
      environment text not null check (environment in ('sandbox','live')),
      status text not null,
      reference text not null unique,
      your_reference text null,
      amount bigint not null check (amount > 0),
      currency text not null,
      channel text not null,
      momo_network_id uuid null,
      fee_platform bigint not null,
      fee_tax bigint not null,
      fee_bearer text not null,
      merchant_amount bigint not null,
      customer_masked text not null,
      customer_name text null,
      description text null,
      action jsonb null,
      metadata_json text not null,
      failure_class text null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index charges_scope_created on charges (merchant_id, environment, created_at desc)`);
    this.addSql(`create table ledger_entries (
      transfer_id text not null,
      account text not null,
      kind text not null,
      merchant_id text not null,
      environment text not null,
      currency text not null,
      amount bigint not null,
      resource_id text not null,
      created_at timestamptz not null,
      primary key (transfer_id, account))`);
    this.addSql(`create index ledger_entries_balance on ledger_entries (merchant_id, environment, account, currency)`);
    this.addSql(`create table event_counters (
      merchant_id text not null,
      environment text not null,
      last_sequence bigint not null,
      primary key (merchant_id, environment))`);
    this.addSql(`create table events (
      id text primary key,
      merchant_id text not null,
      environment text not null,
      sequence bigint not null,
      type text not null,
      resource_type text not null,
      resource_id text not null,
      dedupe_key text not null unique,
      body text not null,
      created_at timestamptz not null,
      unique (merchant_id, environment, sequence))`);
    this.addSql(`create table idempotency_keys (
      merchant_id text not null,
      environment text not null,
      key text not null,
      request_hash text not null,
      resource_id text not null,
      state text not null check (state in ('in_flight','done')),
      response_status integer null,
      response_body text null,
      locked_until timestamptz not null,
      created_at timestamptz not null default now(),
      primary key (merchant_id, environment, key))`);
    this.addSql(`create table momo_networks (id uuid primary key, code text not null unique, name text not null, country text not null, currency text not null)`);
    this.addSql(`create table banks (code text primary key, name text not null, country text not null, currency text not null)`);
    this.addSql(`create table currencies (code text primary key, name text not null, minor_units integer not null)`);
    this.addSql(`create table countries (code text primary key, name text not null, currency text not null)`);
  }
}
