import type { EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_SIGNATURE_SCHEME, type EndpointStatus, type SignatureScheme, type WebhookEndpointRecord } from '../../domain/webhook-endpoint';
import type { Environment } from '../../domain/environment';
import { DEFAULT_DELIVERY_ORDER, type DeliveryOrder } from '../../domain/webhook-fifo';
import type { ChangeAction, ChangeActor } from '../../domain/operator-action';
import { recordChange } from '../operators/change-audit';
import type { Orm } from '../orm';
import { iso, isoOrNull, TEXT_ARRAY, type ListCursor } from '../sql-values';

/** Whose endpoints: every query is scoped by merchant and environment. */
export interface Owner {
  merchantId: string;
  environment: Environment;
}

export interface EndpointRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  url: string;
  description: string | null;
  subscribed_events: string[];
  timeout_seconds: number;
  signature_scheme: SignatureScheme;
  max_per_second: number | null;
  max_in_flight: number | null;
  delivery_order: DeliveryOrder;
  status: EndpointStatus;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  last_failure_reason: string | null;
  last_failure_at: Date | null;
  auto_disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const ENDPOINT_COLUMNS = `id, merchant_id, environment, url, description, subscribed_events, timeout_seconds, signature_scheme, max_per_second, max_in_flight, delivery_order, status,
  previous_secret_expires_at, consecutive_failures, last_failure_reason, last_failure_at, auto_disabled_at, created_at, updated_at`;

export function endpointFromRow(row: EndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    url: row.url,
    description: row.description,
    subscribedEvents: row.subscribed_events,
    timeoutSeconds: row.timeout_seconds,
    signatureScheme: row.signature_scheme,
    maxPerSecond: row.max_per_second,
    maxInFlight: row.max_in_flight,
    deliveryOrder: row.delivery_order,
    status: row.status,
    previousSecretExpiresAt: isoOrNull(row.previous_secret_expires_at),
    consecutiveFailures: row.consecutive_failures,
    lastFailureReason: row.last_failure_reason,
    lastFailureAt: isoOrNull(row.last_failure_at),
    autoDisabledAt: isoOrNull(row.auto_disabled_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export interface NewEndpoint {
  id: string;
  url: string;
  description: string | null;
  subscribedEvents: string[];
  timeoutSeconds: number;
  /** Default service_v1. */
  signatureScheme?: SignatureScheme;
  /** Default null: no limit. */
  maxPerSecond?: number | null;
  maxInFlight?: number | null;
  /** Default unordered. */
  deliveryOrder?: DeliveryOrder;
  sealedSecret: string;
}

/** What an audit row keeps of an endpoint: its set-up, never a secret. */
function auditState(e: WebhookEndpointRecord | null): unknown {
  return e && { url: e.url, description: e.description, subscribed_events: e.subscribedEvents, timeout_seconds: e.timeoutSeconds, signature_scheme: e.signatureScheme, max_per_second: e.maxPerSecond, max_in_flight: e.maxInFlight, delivery_order: e.deliveryOrder, status: e.status };
}

/** The endpoint change's audit row, in the change's transaction (change-audit.ts). */
export async function auditEndpointChange(
  em: EntityManager,
  actor: ChangeActor,
  action: ChangeAction,
  owner: Owner,
  id: string,
  before: WebhookEndpointRecord | null,
  after: WebhookEndpointRecord | null,
): Promise<void> {
  await recordChange(em, actor, { action, subjectId: id, merchantId: owner.merchantId, environment: owner.environment, before: auditState(before), after: auditState(after) });
}

/** The endpoint as it is now, its row locked until the transaction ends; null when absent or deleted. */
async function lockedEndpoint(em: EntityManager, owner: Owner, id: string): Promise<WebhookEndpointRecord | null> {
  const rows = await em.execute<EndpointRow[]>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints where id = ? and merchant_id = ? and environment = ? and deleted_at is null for update`,
    [id, owner.merchantId, owner.environment],
  );
  return rows[0] ? endpointFromRow(rows[0]) : null;
}

/**
 * Runs one change of an existing endpoint with its audit row, in one transaction: the row is locked
 * and read (the audit's "before"), `change` writes and returns it, then the audit row. Null when
 * the endpoint is absent or deleted (nothing written).
 */
async function changeEndpoint(
  orm: Orm,
  owner: Owner,
  id: string,
  actor: ChangeActor,
  action: ChangeAction,
  change: (em: EntityManager) => Promise<WebhookEndpointRecord | null>,
): Promise<WebhookEndpointRecord | null> {
  return orm.em.fork().transactional(async (em) => {
    const before = await lockedEndpoint(em, owner, id);
    if (!before) return null;
    const after = await change(em);
    if (!after) return null;
    await auditEndpointChange(em, actor, action, owner, id, before, action === 'webhook_endpoint.delete' ? null : after);
    return after;
  });
}

export async function insertEndpoint(orm: Orm, owner: Owner, e: NewEndpoint, actor: ChangeActor): Promise<WebhookEndpointRecord> {
  return orm.em.fork().transactional(async (em) => {
    const endpoint = await insertEndpointIn(em, owner, e);
    await auditEndpointChange(em, actor, 'webhook_endpoint.create', owner, endpoint.id, null, endpoint);
    return endpoint;
  });
}

async function insertEndpointIn(em: EntityManager, owner: Owner, e: NewEndpoint): Promise<WebhookEndpointRecord> {
  const rows = await em.execute<EndpointRow[]>(
    `insert into webhook_endpoints (id, merchant_id, environment, url, description, subscribed_events, timeout_seconds, signature_scheme,
       max_per_second, max_in_flight, delivery_order, status, secret_box, created_at, updated_at)
     values (?, ?, ?, ?, ?, ${TEXT_ARRAY}, ?, ?, ?, ?, ?, 'active', ?, date_trunc('milliseconds', now()), now()) returning ${ENDPOINT_COLUMNS}`,
    [
      e.id, owner.merchantId, owner.environment, e.url, e.description, JSON.stringify(e.subscribedEvents), e.timeoutSeconds,
      e.signatureScheme ?? DEFAULT_SIGNATURE_SCHEME, e.maxPerSecond ?? null, e.maxInFlight ?? null, e.deliveryOrder ?? DEFAULT_DELIVERY_ORDER, e.sealedSecret,
    ],
  );
  return endpointFromRow(rows[0]);
}

export async function findEndpoint(orm: Orm, owner: Owner, id: string): Promise<WebhookEndpointRecord | null> {
  const rows = await orm.em.getConnection().execute<EndpointRow[]>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints where id = ? and merchant_id = ? and environment = ? and deleted_at is null`,
    [id, owner.merchantId, owner.environment],
  );
  return rows[0] ? endpointFromRow(rows[0]) : null;
}

/** Newest first; `limit + 1` rows tell whether there is more. */
export async function listEndpoints(orm: Orm, owner: Owner, limit: number, after: ListCursor | null): Promise<WebhookEndpointRecord[]> {
  const rows = await orm.em.getConnection().execute<EndpointRow[]>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints
     where merchant_id = ? and environment = ? and deleted_at is null
       and (?::timestamptz is null or (created_at, id) < (?::timestamptz, ?))
     order by created_at desc, id desc limit ?`,
    [owner.merchantId, owner.environment, after?.createdAt ?? null, after?.createdAt ?? null, after?.id ?? null, limit + 1],
  );
  return rows.map(endpointFromRow);
}

export interface EndpointPatch {
  url?: string;
  description?: string | null;
  subscribedEvents?: string[];
  timeoutSeconds?: number;
  signatureScheme?: SignatureScheme;
  maxPerSecond?: number | null;
  maxInFlight?: number | null;
  deliveryOrder?: DeliveryOrder;
  status?: EndpointStatus;
}

/**
 * Applies a PATCH. `status: active` re-enables and clears the failure streak and auto-disable mark;
 * `status: disabled` pauses delivery by hand (no auto_disabled_at).
 */
export async function updateEndpoint(orm: Orm, owner: Owner, id: string, patch: EndpointPatch, actor: ChangeActor): Promise<WebhookEndpointRecord | null> {
  const sets: string[] = ['updated_at = now()'];
  const params: unknown[] = [];
  const set = (sql: string, value: unknown) => {
    sets.push(sql);
    params.push(value);
  };
  if (patch.url !== undefined) set('url = ?', patch.url);
  if (patch.description !== undefined) set('description = ?', patch.description);
  if (patch.subscribedEvents !== undefined) set(`subscribed_events = ${TEXT_ARRAY}`, JSON.stringify(patch.subscribedEvents));
  if (patch.timeoutSeconds !== undefined) set('timeout_seconds = ?', patch.timeoutSeconds);
  if (patch.signatureScheme !== undefined) set('signature_scheme = ?', patch.signatureScheme);
  if (patch.maxPerSecond !== undefined) set('max_per_second = ?', patch.maxPerSecond);
  if (patch.maxInFlight !== undefined) set('max_in_flight = ?', patch.maxInFlight);
  if (patch.deliveryOrder !== undefined) set('delivery_order = ?', patch.deliveryOrder);
  if (patch.status === 'active') {
    sets.push(`status = 'active', consecutive_failures = 0, failure_streak_started_at = null, auto_disabled_at = null`);
  } else if (patch.status === 'disabled') {
    sets.push(`status = 'disabled'`);
  }
  return changeEndpoint(orm, owner, id, actor, 'webhook_endpoint.update', async (em) => {
    const rows = await em.execute<EndpointRow[]>(
      `update webhook_endpoints set ${sets.join(', ')}
       where id = ? and merchant_id = ? and environment = ? and deleted_at is null returning ${ENDPOINT_COLUMNS}`,
      [...params, id, owner.merchantId, owner.environment],
    );
    return rows[0] ? endpointFromRow(rows[0]) : null;
  });
}

/** Soft delete: deliveries keep their endpoint; nothing more is sent to it. */
export async function deleteEndpoint(orm: Orm, owner: Owner, id: string, actor: ChangeActor): Promise<boolean> {
  const deleted = await changeEndpoint(orm, owner, id, actor, 'webhook_endpoint.delete', async (em) => {
    const rows = await em.execute<EndpointRow[]>(
      `update webhook_endpoints set deleted_at = now(), updated_at = now()
       where id = ? and merchant_id = ? and environment = ? and deleted_at is null returning ${ENDPOINT_COLUMNS}`,
      [id, owner.merchantId, owner.environment],
    );
    return rows[0] ? endpointFromRow(rows[0]) : null;
  });
  return deleted !== null;
}

/**
 * The current secret becomes the previous one, valid for `overlapMs` more; the new one signs at once.
 * A previous secret whose overlap has not ended moves to `retired_secrets` and keeps signing until its
 * own expiry (issue 32: a second rotation within the overlap used to drop it at once); entries of
 * `retired_secrets` that have expired are dropped.
 */
export async function rotateEndpointSecret(orm: Orm, owner: Owner, id: string, sealedSecret: string, overlapMs: number, actor: ChangeActor): Promise<WebhookEndpointRecord | null> {
  return changeEndpoint(orm, owner, id, actor, 'webhook_endpoint.rotate_secret', async (em) => {
    const rows = await em.execute<EndpointRow[]>(
      `update webhook_endpoints
       set retired_secrets = (
             select coalesce(jsonb_agg(kept.s order by (kept.s ->> 'expires_at')::timestamptz desc), '[]'::jsonb)
             from (select r.s from jsonb_array_elements(retired_secrets) as r(s) where (r.s ->> 'expires_at')::timestamptz > now()
                   union all
                   select jsonb_build_object('box', previous_secret_box, 'expires_at', previous_secret_expires_at)
                   where previous_secret_box is not null and previous_secret_expires_at > now()) kept),
           previous_secret_box = secret_box, secret_box = ?, previous_secret_expires_at = now() + make_interval(secs => ?), updated_at = now()
       where id = ? and merchant_id = ? and environment = ? and deleted_at is null returning ${ENDPOINT_COLUMNS}`,
      [sealedSecret, overlapMs / 1000, id, owner.merchantId, owner.environment],
    );
    return rows[0] ? endpointFromRow(rows[0]) : null;
  });
}
