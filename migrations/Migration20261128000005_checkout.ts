import { Migration } from '@mikro-orm/migrations';

/**
 * Hosted checkout (issue 21; docs/checkout.md): `checkout_tokens`, one row per sandbox card or bank
 * charge on hosted checkout, written in the charge's create transaction. The token itself (32
 * random bytes, base64url) is only in the create answer's `action.url`; the row keeps its sha256.
 * `expires_at` is the charge's; `used_at` is set once, by the page's decision (`update … where
 * used_at is null and expires_at > now() returning`), with the `decision` taken. No foreign key:
 * the row is written just before the charge in the same transaction.
 *
 * Frozen once landed.
 */
export class Migration20261128000005_checkout extends Migration {
  override name = 'Migration20261128000005_checkout';

  override up(): void {
    this.addSql(`create table checkout_tokens (
      token_hash text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
      charge_id text not null unique,
      expires_at timestamptz not null,
      used_at timestamptz null,
      decision text null check (decision in ('approved','declined')),
      created_at timestamptz not null default now(),
      check ((used_at is null) = (decision is null)))`);
  }
}
