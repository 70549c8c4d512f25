import { Migration } from '@mikro-orm/migrations';

/**
 * `partner_calls` (issue 46): every call the worker makes to a live partner, measured by
 * src/rail/measured-rail.ts and written in small batches (src/persistence/partner/partner-call-store.ts):
 * the partner, the call (`submit`, `status`), how it ended (src/domain/partner-health.ts
 * PARTNER_CALL_OUTCOMES), the HTTP status when there was one, and how long it took. The health view
 * and the circuit breakers read the last few minutes (PARTNER_HEALTH_WINDOW_MS); the breaker
 * evaluator deletes rows older than a day. No payment, reference or party is kept: only counts.
 *
 * One index, on `at`: the window is a small range of it, and so are the rows past a day.
 *
 * Frozen once landed.
 */
export class Migration20261217000010_partner_calls extends Migration {
  override name = 'Migration20261217000010_partner_calls';

  override up(): void {
    this.addSql(`create table if not exists partner_calls (
      id bigserial primary key,
      partner text not null check (partner in ('momo', 'aggregator')),
      call text not null check (call in ('submit', 'status')),
      outcome text not null check (outcome in ('answered', 'refused_final', 'refused_elsewhere', 'timeout', 'server_error', 'not_reached', 'other_error')),
      http_status int null,
      latency_ms int not null check (latency_ms >= 0),
      at timestamptz not null)`);
    this.addSql(`create index if not exists partner_calls_at on partner_calls (at)`);
  }
}
