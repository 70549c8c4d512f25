import type { Context } from 'koa';
import { ApiError } from '../../domain/errors';
import { EVENT_TYPES } from '../../domain/event-types';
import { isIdOf } from '../../domain/ids';
import type { DeliveryStatus } from '../../domain/webhook-delivery';
import { DEFAULT_SIGNATURE_SCHEME, type WebhookEndpointRecord } from '../../domain/webhook-endpoint';
import { DEFAULT_DELIVERY_ORDER, type DeliveryOrder } from '../../domain/webhook-fifo';
import { listCursor } from '../../services/list-cursor';
import { validateCreateEndpoint } from '../../http/schemas/webhook-endpoints';
import { check } from '../../http/validate';
import type { PortalSession } from '../../persistence/portal/portal-session-store';
import { encodeListCursor, type ListCursor } from '../../persistence/sql-values';
import { loadAttemptContext } from '../../persistence/webhooks/webhook-attempt-store';
import { findDelivery, listDeliveries } from '../../persistence/webhooks/webhook-delivery-store';
import { findEndpoint, listEndpoints } from '../../persistence/webhooks/webhook-endpoint-store';
import { replayDelivery } from '../../services/replay-delivery';
import { recoverEndpoint } from '../../services/recover-endpoint';
import { validateRecoverEndpoint, validateSkipEvent, validateUpdateEndpoint } from '../../http/schemas/webhook-endpoints';
import { fifoWaitingOf, nextFifoWaiting } from '../../persistence/webhooks/webhook-fifo-store';
import { skipFifoEvent } from '../../services/skip-fifo-event';
import { listRecoveries } from '../../persistence/webhooks/webhook-recovery-store';
import { createEndpoint, patchEndpoint, removeEndpoint, rotateSecret } from '../../services/webhook-endpoints';
import { callerOf, frameOf, html, notFoundText, portalActor, see, type PortalRoutes } from './kit';
import { deliveryPage, REPLAYED_MESSAGE, type DeliveryRequest } from './webhooks-delivery-page';
import { DELIVERY_STATUSES, endpointPage, type DeliveriesView, type FifoView } from './webhooks-endpoint-page';
import { endpointSecretPage, endpointsPage, type RegisterForm } from './webhooks-page';

export const WEBHOOKS_PATH = '/webhooks';

/** Deliveries per page of an endpoint. */
const DELIVERIES_PAGE = 20;
/** Recoveries shown on an endpoint's page, newest first. */
const RECOVERIES_SHOWN = 5;
/** Endpoints listed (the per-environment cap, WEBHOOK_MAX_ENDPOINTS, defaults to 16). */
const ENDPOINTS_SHOWN = 100;

const STATUS_MESSAGE: Record<'active' | 'disabled', string> = {
  active: 'The endpoint is active: events are sent to it again. Replay what it missed from its skipped deliveries.',
  disabled: 'The endpoint is disabled: nothing is sent to it; its events are recorded as skipped deliveries.',
};

const ORDER_MESSAGE: Record<DeliveryOrder, string> = {
  fifo: 'Delivery order is FIFO: new events are sent one at a time, in sequence order; a failing event holds the ones behind it until it succeeds or you skip it.',
  unordered: 'Delivery order is unordered: new events are sent as they come. Events already waiting in the FIFO queue are still sent in order until it is empty.',
};

/**
 * Webhooks: the environment's endpoints (register, the secret once), one endpoint (health, rotate,
 * enable/disable, delivery order, delete, recover since, its FIFO queue and Skip event, its deliveries
 * by status, event type and page) and one delivery (its attempts, replay).
 * Everything goes through the API's services and stores with the session's caller; every change
 * writes its operator_audit row as `portal:<email>`. An id of another merchant or environment is 404.
 */
export const webhooksRoutes: PortalRoutes = (router, kit) => {
  const { deps } = kit;
  const { orm } = deps;
  const actor = (ctx: Context, session: PortalSession) => portalActor(session, ctx.state.requestId as string, 'Webhooks');
  const fieldsOf = (ctx: Context) => ctx.state.fields as URLSearchParams;

  async function listPage(ctx: Context, session: PortalSession, status: number, options: Parameters<typeof endpointsPage>[2] = {}): Promise<void> {
    const endpoints = await listEndpoints(orm, callerOf(session), ENDPOINTS_SHOWN, null);
    const waiting = await fifoWaitingOf(orm, endpoints.map((e) => e.id));
    html(ctx, status, endpointsPage(frameOf(session, WEBHOOKS_PATH), endpoints, { ...options, waiting }));
  }

  /** The endpoint page: a page of its deliveries from the query (status and event type filters, cursor; an unknown status or type shows every one). */
  async function showEndpoint(ctx: Context, session: PortalSession, endpoint: WebhookEndpointRecord, httpStatus: number, message: string | null, kind: 'error' | 'notice'): Promise<void> {
    const statusParam = typeof ctx.query.status === 'string' ? ctx.query.status : '';
    const status = (DELIVERY_STATUSES as string[]).includes(statusParam) ? (statusParam as DeliveryStatus) : null;
    const eventTypeParam = typeof ctx.query.event_type === 'string' ? ctx.query.event_type : '';
    const eventType = EVENT_TYPES.some((t) => t.type === eventTypeParam) ? eventTypeParam : null;
    let after: ListCursor | null = null;
    if (typeof ctx.query.cursor === 'string' && ctx.query.cursor !== '') {
      try {
        after = listCursor(ctx.query.cursor, 'delivery');
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        httpStatus = 400;
        message = 'That page of deliveries does not exist: showing the newest.';
        kind = 'error';
      }
    }
    const rows = await listDeliveries(orm, callerOf(session), endpoint.id, status, DELIVERIES_PAGE, after, eventType ? { eventTypes: [eventType] } : {});
    const deliveries = rows.slice(0, DELIVERIES_PAGE);
    const last = deliveries[deliveries.length - 1];
    const view: DeliveriesView = {
      deliveries,
      status,
      eventType,
      older: rows.length > DELIVERIES_PAGE && last ? encodeListCursor({ createdAt: last.createdAt, id: last.id }) : null,
      paged: after !== null,
    };
    const recoveries = await listRecoveries(orm, callerOf(session), endpoint.id, RECOVERIES_SHOWN);
    // Issue 49: the FIFO queue's count and since when (as the API's health), and its head, the event the others wait behind.
    const waiting = (await fifoWaitingOf(orm, [endpoint.id])).get(endpoint.id)!;
    const fifo: FifoView = { waiting, head: waiting.count > 0 ? ((await nextFifoWaiting(orm, endpoint.id, 1)).waiting[0] ?? null) : null };
    html(ctx, httpStatus, endpointPage(frameOf(session, WEBHOOKS_PATH), endpoint, view, message, kind, recoveries, fifo));
  }

  /** The delivery page, with what its attempts send (read only once the delivery is known to be the caller's). */
  async function showDelivery(ctx: Context, session: PortalSession, id: string, httpStatus: number, message: string | null, kind: 'error' | 'notice'): Promise<void> {
    const caller = callerOf(session);
    const found = await findDelivery(orm, caller, id);
    if (!found) return notFoundText(ctx);
    const endpoint = await findEndpoint(orm, caller, found.delivery.endpointId);
    const sent = await loadAttemptContext(orm, found.delivery.id, 1);
    const request: DeliveryRequest | null = sent ? { url: sent.url, body: sent.eventBody, sequence: sent.eventSequence, signatureScheme: sent.signatureScheme } : null;
    html(ctx, httpStatus, deliveryPage(frameOf(session, WEBHOOKS_PATH), found.delivery, found.attempts, endpoint, request, message, kind));
  }

  /** A service's refusal (ApiError) as the page's message with its status; 404 as the portal's not-found. */
  async function refused(ctx: Context, error: unknown, render: (status: number, message: string) => Promise<void>): Promise<void> {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 404) return notFoundText(ctx);
    await render(error.status, error.message);
  }

  router.get(WEBHOOKS_PATH, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    await listPage(ctx, session, 200, ctx.query.deleted === '1' ? { message: 'The endpoint was deleted: nothing more is sent to it.', status: 'notice' } : {});
  });

  router.post(WEBHOOKS_PATH, async (ctx) => {
    const session = await kit.posted(ctx, 'manage_webhooks');
    if (!session) return;
    const fields = fieldsOf(ctx);
    const form: RegisterForm = {
      url: (fields.get('url') ?? '').trim(),
      description: (fields.get('description') ?? '').trim(),
      events: fields.getAll('event'),
      signatureScheme: fields.get('signature_scheme') ?? DEFAULT_SIGNATURE_SCHEME,
      deliveryOrder: fields.get('delivery_order') ?? DEFAULT_DELIVERY_ORDER,
    };
    try {
      const request = check(validateCreateEndpoint, {
        url: form.url,
        ...(form.description ? { description: form.description } : {}),
        ...(form.events.length ? { subscribed_events: form.events } : {}),
        signature_scheme: form.signatureScheme,
        delivery_order: form.deliveryOrder,
      });
      const { endpoint, secret } = await createEndpoint(deps, callerOf(session), request, actor(ctx, session));
      html(ctx, 200, endpointSecretPage(frameOf(session, WEBHOOKS_PATH), 'created', endpoint, secret));
    } catch (error) {
      await refused(ctx, error, (status, message) => listPage(ctx, session, status, { form, message: `The endpoint was not registered: ${message}` }));
    }
  });

  router.get(`${WEBHOOKS_PATH}/:id`, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    const id = ctx.params.id ?? '';
    const endpoint = isIdOf('webhookEndpoint', id) ? await findEndpoint(orm, callerOf(session), id) : null;
    if (!endpoint) return notFoundText(ctx);
    const recovered = typeof ctx.query.recovered === 'string' && isIdOf('webhookRecovery', ctx.query.recovered) ? ctx.query.recovered : null;
    const skipped = typeof ctx.query.skipped === 'string' && /^[1-9][0-9]{0,15}$/.test(ctx.query.skipped) ? ctx.query.skipped : null;
    const notice =
      ctx.query.updated === '1'
        ? STATUS_MESSAGE[endpoint.status]
        : ctx.query.ordered === '1'
          ? ORDER_MESSAGE[endpoint.deliveryOrder]
          : recovered
            ? `Recovery ${recovered} started: its resends are queued and sent; its progress is under Recoveries.`
            : skipped
              ? `Event ${skipped} skipped: its delivery is recorded as skipped and the events behind it in the FIFO queue go on.`
              : null;
    await showEndpoint(ctx, session, endpoint, 200, notice, 'notice');
  });

  /**
   * A POST on one endpoint (`/webhooks/:id/<action>`): the signed-in session and a well-formed id,
   * then `act`; a service's refusal shows the endpoint's page again with its message.
   */
  function endpointAction(action: string, act: (ctx: Context, session: PortalSession, id: string) => Promise<void>): void {
    router.post(`${WEBHOOKS_PATH}/:id/${action}`, async (ctx) => {
      const session = await kit.posted(ctx, 'manage_webhooks');
      if (!session) return;
      const id = ctx.params.id ?? '';
      if (!isIdOf('webhookEndpoint', id)) return notFoundText(ctx);
      try {
        await act(ctx, session, id);
      } catch (error) {
        await refused(ctx, error, (status, message) => endpointAgain(ctx, session, id, status, message));
      }
    });
  }

  endpointAction('rotate', async (ctx, session, id) => {
    const { endpoint, secret } = await rotateSecret(deps, callerOf(session), id, actor(ctx, session));
    html(ctx, 200, endpointSecretPage(frameOf(session, WEBHOOKS_PATH), 'rotated', endpoint, secret));
  });

  endpointAction('status', async (ctx, session, id) => {
    const status = fieldsOf(ctx).get('status');
    if (status !== 'active' && status !== 'disabled') throw new ApiError('invalid_request', 'Choose to enable or to disable the endpoint.', { param: 'status' });
    await patchEndpoint(deps, callerOf(session), id, { status }, actor(ctx, session));
    see(ctx, `${WEBHOOKS_PATH}/${id}?updated=1`);
  });

  // Issue 49: the form's datetime-local value is a UTC date and time (seconds optional), sent as RFC 3339 with Z.
  endpointAction('recover', async (ctx, session, id) => {
    const raw = (fieldsOf(ctx).get('since') ?? '').trim();
    const local = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.exec(raw);
    if (!local) throw new ApiError('invalid_request', 'Give the date and time to recover since (UTC).', { param: 'since' });
    const { since } = check(validateRecoverEndpoint, { since: `${raw}${local[1] ? '' : ':00'}Z` });
    const recovery = await recoverEndpoint(deps, callerOf(session), id, since, actor(ctx, session));
    see(ctx, `${WEBHOOKS_PATH}/${id}?recovered=${recovery.id}`);
  });

  // Issue 49: the delivery order, switched from the endpoint's page (PATCH delivery_order, audited as webhook_endpoint.update).
  endpointAction('order', async (ctx, session, id) => {
    const { delivery_order } = check(validateUpdateEndpoint, { delivery_order: fieldsOf(ctx).get('delivery_order') ?? '' });
    await patchEndpoint(deps, callerOf(session), id, { delivery_order }, actor(ctx, session));
    see(ctx, `${WEBHOOKS_PATH}/${id}?ordered=1`);
  });

  // Issue 49, FIFO: the held event's delivery skipped by its sequence (the API's skip service, audited as
  // webhook_delivery.skip). An unknown sequence is the service's 404 on `sequence`: the page with its message, not the portal's 404.
  endpointAction('skip', async (ctx, session, id) => {
    try {
      const raw = (fieldsOf(ctx).get('sequence') ?? '').trim();
      if (!/^[0-9]{1,16}$/.test(raw)) throw new ApiError('invalid_request', 'Give the sequence number of the event to skip (a whole number from 1).', { param: 'sequence' });
      const { sequence } = check(validateSkipEvent, { sequence: Number(raw) });
      await skipFifoEvent(deps, callerOf(session), id, sequence, actor(ctx, session));
      see(ctx, `${WEBHOOKS_PATH}/${id}?skipped=${sequence}`);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status === 404 && error.extras.param !== 'sequence')) throw error;
      await endpointAgain(ctx, session, id, error.status, `Not skipped: ${error.message}`);
    }
  });

  endpointAction('delete', async (ctx, session, id) => {
    if (fieldsOf(ctx).get('confirm') !== 'yes') throw new ApiError('invalid_request', 'Tick “Yes, delete this endpoint” to delete it.', { param: 'confirm' });
    await removeEndpoint(deps, callerOf(session), id, actor(ctx, session));
    see(ctx, `${WEBHOOKS_PATH}?deleted=1`);
  });

  /** After a refused endpoint action: its page again with the message (404 if it is gone meanwhile). */
  async function endpointAgain(ctx: Context, session: PortalSession, id: string, status: number, message: string): Promise<void> {
    const endpoint = await findEndpoint(orm, callerOf(session), id);
    if (!endpoint) return notFoundText(ctx);
    await showEndpoint(ctx, session, endpoint, status, message, 'error');
  }

  router.get(`${WEBHOOKS_PATH}/deliveries/:id`, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    const id = ctx.params.id ?? '';
    if (!isIdOf('delivery', id)) return notFoundText(ctx);
    await showDelivery(ctx, session, id, 200, ctx.query.replayed === '1' ? REPLAYED_MESSAGE : null, 'notice');
  });

  router.post(`${WEBHOOKS_PATH}/deliveries/:id/replay`, async (ctx) => {
    const session = await kit.posted(ctx, 'manage_webhooks');
    if (!session) return;
    const id = ctx.params.id ?? '';
    if (!isIdOf('delivery', id)) return notFoundText(ctx);
    try {
      const replay = await replayDelivery(deps, callerOf(session), id, undefined, actor(ctx, session));
      see(ctx, `${WEBHOOKS_PATH}/deliveries/${replay.id}?replayed=1`);
    } catch (error) {
      await refused(ctx, error, (status, message) => showDelivery(ctx, session, id, status, `Not replayed: ${message}`, 'error'));
    }
  });
};
