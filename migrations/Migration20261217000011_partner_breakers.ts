import { Migration } from '@mikro-orm/migrations';

/**
 * `partner_breakers` (issue 46): one circuit breaker per live partner (src/domain/partner-health.ts),
 * moved by the worker's evaluator (src/runtime/partner-breaker-monitor.ts, one transaction that locks
 * the rows, so several workers agree) and by an operator's `routing drain|resume` (audited in
 * operator_audit as `partner.drain` / `partner.resume`). `since`: when it entered its state;
 * `reason`: why; `probe_at`: when a half-open breaker last let a probe payment through (claimed
 * atomically by partnerAdmits); `drained_by` / `drained_reason`: who drained it and why.
 * Both partners' rows are written here, closed, so that a breaker always exists.
 *
 * `partner_breaker_changes`: every change of state the evaluator makes, with its reason (an
 * operator's drain and resume are in the operator audit).
 *
 * Frozen once landed.
 */
export class Migration20261217000011_partner_breakers extends Migration {
  override name = 'Migration20261217000011_partner_breakers';

  override up(): void {
    this.addSql(`create table if not exists partner_breakers (
      partner text primary key check (partner in ('momo', 'aggregator')),
      state text not null check (state in ('closed', 'open', 'half_open', 'drained')),
      since timestamptz not null,
      reason text null,
      probe_at timestamptz null,
      drained_by text null,
      drained_reason text null)`);
    this.addSql(`insert into partner_breakers (partner, state, since) values ('momo', 'closed', now()), ('aggregator', 'closed', now()) on conflict (partner) do nothing`);
    this.addSql(`create table if not exists partner_breaker_changes (
      id bigserial primary key,
      partner text not null check (partner in ('momo', 'aggregator')),
      from_state text not null,
      to_state text not null,
      reason text not null,
      at timestamptz not null default now())`);
    this.addSql(`create index if not exists partner_breaker_changes_partner_at on partner_breaker_changes (partner, at)`);
  }
}
