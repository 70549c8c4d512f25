import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 49: an endpoint chooses how its deliveries are signed. `service_v1` (every endpoint so far,
 * and the default): X-Service-Signature, hex HMAC-SHA256 of `timestamp.body` (SPEC 6.2).
 * `standard_webhooks`: the Standard Webhooks headers (webhook-id, webhook-timestamp,
 * webhook-signature `v1,<base64>`), so the libraries merchants already have verify it unchanged
 * (src/webhooks/signature.ts). Frozen once landed.
 */
export class Migration20261221000002_webhook_signature_scheme extends Migration {
  override name = 'Migration20261221000002_webhook_signature_scheme';

  override up(): void {
    this.addSql(`alter table webhook_endpoints add column signature_scheme text not null default 'service_v1'
      check (signature_scheme in ('service_v1','standard_webhooks'))`);
  }
}
