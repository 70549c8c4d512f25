import { Migration } from '@mikro-orm/migrations';

/**
 * The merchant portal's sign-in (issue 21; docs/security.md "Merchant portal"): `portal_users`, one
 * row per person who signs in to a merchant's portal (email lower-cased and unique, an argon2id
 * hash, the failed-attempt count and lock-out), and `portal_sessions`, one row per signed-in
 * browser: the id is the sha256 of the cookie's token (the token itself is never stored), the
 * environment the switch chose, the session's CSRF secret, its expiry and its revocation (sign-out).
 *
 * Frozen once landed.
 */
export class Migration20261128000006_portal_users extends Migration {
  override name = 'Migration20261128000006_portal_users';

  override up(): void {
    this.addSql(`create table portal_users (
      id text primary key check (id ~ '^usr_[0-9A-Za-z]{24}$'),
      merchant_id text not null references merchants (id),
      email text not null unique check (email = lower(email) and length(email) between 3 and 254),
      password_hash text not null check (password_hash like '$argon2id$%'),
      failed_attempts integer not null default 0 check (failed_attempts >= 0),
      locked_until timestamptz null,
      created_at timestamptz not null default now(),
      last_sign_in_at timestamptz null)`);
    this.addSql(`create index portal_users_merchant on portal_users (merchant_id)`);
    this.addSql(`create table portal_sessions (
      id text primary key check (id ~ '^[0-9a-f]{64}$'),
      user_id text not null references portal_users (id),
      environment text not null default 'sandbox' check (environment in ('sandbox','live')),
      csrf_secret text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      revoked_at timestamptz null)`);
    this.addSql(`create index portal_sessions_user on portal_sessions (user_id)`);
  }
}
