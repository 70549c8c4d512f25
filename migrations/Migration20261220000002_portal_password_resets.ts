import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 47, finding 6: a portal user's password reset by an emailed one-time link.
 *
 * - `portal_password_resets`: one row per reset asked for by an existing, active user. The id is the
 *   sha256 (hex) of the link's token (32 random bytes, base64url), so a database read never yields a
 *   usable link; `link_sealed` is the link itself sealed with SECRETS_KEY (AES-256-GCM, as webhook
 *   secrets are), for the notification worker that writes the email, and is cleared once the reset
 *   is used or replaced. A reset lasts 30 minutes, is used once (`used_at`), and a newer request
 *   replaces the older ones (`superseded_at`).
 * - `notifications.kind` also takes `portal_password_reset`: the email with the link, recorded in the
 *   same statement as the reset (the transactional outbox), its source the reset's row.
 *
 * Frozen once landed.
 */
export class Migration20261220000002_portal_password_resets extends Migration {
  override name = 'Migration20261220000002_portal_password_resets';

  override up(): void {
    this.addSql(`create table portal_password_resets (
      id text primary key check (id ~ '^[0-9a-f]{64}$'),
      user_id text not null references portal_users (id),
      link_sealed text null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz null,
      superseded_at timestamptz null)`);
    this.addSql(`create index portal_password_resets_user on portal_password_resets (user_id) where used_at is null and superseded_at is null`);
    this.addSql(`alter table notifications drop constraint notifications_kind_check`);
    this.addSql(`alter table notifications add constraint notifications_kind_check
      check (kind in ('charge_receipt','payout_held_for_review','settlement_paid','settlement_failed','dispute_opened','dispute_deadline','settlement_account_changed','portal_password_reset'))`);
  }
}
