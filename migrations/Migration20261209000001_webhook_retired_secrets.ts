import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 32, rotation: a second rotation within the overlap no longer drops the first old secret.
 * `retired_secrets` keeps every secret rotated out before the previous one whose overlap has not ended:
 * a JSON array of `{ "box": <sealed secret>, "expires_at": <timestamptz> }`, newest first. A rotation
 * moves the previous secret there (when it still signs) and drops the entries that have expired.
 * Deliveries are signed with the current secret, the previous one and these, each until its expiry.
 *
 * Frozen once landed.
 */
export class Migration20261209000001_webhook_retired_secrets extends Migration {
  override name = 'Migration20261209000001_webhook_retired_secrets';

  override up(): void {
    this.addSql(`alter table webhook_endpoints add column retired_secrets jsonb not null default '[]'::jsonb
      check (jsonb_typeof(retired_secrets) = 'array')`);
  }
}
