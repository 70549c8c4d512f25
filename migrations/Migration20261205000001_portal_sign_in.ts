import { Migration } from '@mikro-orm/migrations';

/**
 * The portal's sign-in under attack (issue 30; docs/security.md "Merchant portal"):
 * - `portal_sign_in_attempts`: one row per email tried, known or not, keyed by the sha256 (hex) of
 *   the lower-cased email (no address is stored): the attempts since the last success, counted before
 *   the password is checked, and the lock-out's end. It replaces `portal_users.failed_attempts` and
 *   `locked_until`, which only a known email had (so the lock-out told which emails exist).
 * - `portal_users.disabled_at`: a user disabled by an operator (`users disable`) or by a colleague on
 *   the portal's Users page: its sessions end, and it cannot sign in.
 *
 * Frozen once landed.
 */
export class Migration20261205000001_portal_sign_in extends Migration {
  override name = 'Migration20261205000001_portal_sign_in';

  override up(): void {
    this.addSql(`create table portal_sign_in_attempts (
      key text primary key check (key ~ '^[0-9a-f]{64}$'),
      attempts integer not null default 0 check (attempts >= 0),
      locked_until timestamptz null,
      updated_at timestamptz not null default now())`);
    this.addSql(`create index portal_sign_in_attempts_updated on portal_sign_in_attempts (updated_at)`);
    this.addSql(`alter table portal_users drop column failed_attempts, drop column locked_until, add column disabled_at timestamptz null`);
  }
}
