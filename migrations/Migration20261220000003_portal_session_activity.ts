import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 47, finding 6: portal sessions end when idle (PORTAL_SESSION_IDLE_MINUTES, default 30) as
 * well as at their absolute end (PORTAL_SESSION_MAX_HOURS, default 12), and a user lists their own.
 *
 * - `last_seen_at`: the session's last use, bumped at most once a minute; a session not used for the
 *   idle timeout is not found (src/persistence/portal/portal-session-store.ts). Rows of before this
 *   migration count as seen now.
 * - `client_address`, `user_agent`: where the session was opened from (the client address as the
 *   web port sees it, the User-Agent cut to 256 characters), shown on the Account page's session list.
 *
 * Frozen once landed.
 */
export class Migration20261220000003_portal_session_activity extends Migration {
  override name = 'Migration20261220000003_portal_session_activity';

  override up(): void {
    this.addSql(`alter table portal_sessions add column last_seen_at timestamptz not null default now()`);
    this.addSql(`alter table portal_sessions add column client_address text null check (char_length(client_address) <= 64)`);
    this.addSql(`alter table portal_sessions add column user_agent text null check (char_length(user_agent) <= 256)`);
    this.addSql(`create index portal_sessions_live on portal_sessions (user_id, last_seen_at) where revoked_at is null`);
  }
}
