import { Migration } from '@mikro-orm/migrations';

/**
 * Key roll, expiry and last use (issue 20, `keys roll`, `keys list`): `expires_at` ends a rolled key
 * (null: no expiry), `rolled_to` names the key that replaced it, `last_used_at` is when it last
 * authenticated a request (to the minute: written at most once a minute per key). Frozen once landed.
 */
export class Migration20261128000001_api_key_roll extends Migration {
  override name = 'Migration20261128000001_api_key_roll';

  override up(): void {
    this.addSql(`alter table api_keys add column expires_at timestamptz null, add column rolled_to text null, add column last_used_at timestamptz null`);
    this.addSql(`create index api_keys_merchant on api_keys (merchant_id, created_at)`);
  }
}
