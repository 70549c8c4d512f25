import type { ChangeActor } from '../../domain/operator-action';
import { DEFAULT_SIGNATURE_SCHEME, type WebhookEndpointRecord } from '../../domain/webhook-endpoint';
import { DEFAULT_DELIVERY_ORDER } from '../../domain/webhook-fifo';
import type { Orm } from '../orm';
import { TEXT_ARRAY } from '../sql-values';
import { auditEndpointChange, ENDPOINT_COLUMNS, endpointFromRow, type EndpointRow, type NewEndpoint, type Owner } from './webhook-endpoint-store';

/**
 * Inserts the endpoint unless the owner (merchant and environment) already has `max` endpoints that
 * are not deleted (disabled ones count); null when refused. Creates of one owner are serialised by a
 * transaction-scoped advisory lock, taken before the count, so two concurrent creates cannot both
 * pass the count and exceed the cap (the count runs on a snapshot taken after the lock is held).
 * The create's audit row commits with it.
 */
export async function insertEndpointWithinLimit(orm: Orm, owner: Owner, e: NewEndpoint, max: number, actor: ChangeActor): Promise<WebhookEndpointRecord | null> {
  return orm.em.fork().transactional(async (em) => {
    await em.execute(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`webhook_endpoints:${owner.merchantId}:${owner.environment}`]);
    const rows = await em.execute<EndpointRow[]>(
      `insert into webhook_endpoints (id, merchant_id, environment, url, description, subscribed_events, timeout_seconds, signature_scheme,
         max_per_second, max_in_flight, delivery_order, status, secret_box, created_at, updated_at)
       select ?, ?, ?, ?, ?, ${TEXT_ARRAY}, ?, ?, ?, ?, ?, 'active', ?, date_trunc('milliseconds', now()), now()
       where (select count(*) from webhook_endpoints where merchant_id = ? and environment = ? and deleted_at is null) < ?
       returning ${ENDPOINT_COLUMNS}`,
      [
        e.id,
        owner.merchantId,
        owner.environment,
        e.url,
        e.description,
        JSON.stringify(e.subscribedEvents),
        e.timeoutSeconds,
        e.signatureScheme ?? DEFAULT_SIGNATURE_SCHEME,
        e.maxPerSecond ?? null,
        e.maxInFlight ?? null,
        e.deliveryOrder ?? DEFAULT_DELIVERY_ORDER,
        e.sealedSecret,
        owner.merchantId,
        owner.environment,
        max,
      ],
    );
    if (!rows[0]) return null;
    const endpoint = endpointFromRow(rows[0]);
    await auditEndpointChange(em, actor, 'webhook_endpoint.create', owner, endpoint.id, null, endpoint);
    return endpoint;
  });
}
