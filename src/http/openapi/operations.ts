import { CHARGE_LIST, DISPUTE_LIST, PAYOUT_LIST, REFUND_LIST, SETTLEMENT_LIST } from '../../services/payment-lists';
import type { ValidateFunction } from 'ajv';
import type { Scope } from '../../domain/scopes';
import { validateCreateCharge } from '../schemas/create-charge';
import { validateCreatePayout } from '../schemas/create-payout';
import { validateCreateRefund } from '../schemas/create-refund';
import { validateDisputeEvidence } from '../schemas/dispute-evidence';
import { validateListEvents } from '../schemas/list-events';
import { validateOpenDispute } from '../schemas/open-dispute';
import { DELIVERY_FILTERS, validateCreateEndpoint, validateListQuery, validateRecoverEndpoint, validateSkipEvent, validateUpdateEndpoint } from '../schemas/webhook-endpoints';
import { ID_PREFIX } from '../../domain/ids';
import { BALANCE_TRANSACTION_ID_PATTERN } from '../../domain/balance-transaction';
import { balanceTransactionParameters, eventTypesDescription, idParameter, INSTANT, listFilterParameters, PAGE_PARAMETERS, queryFromSchema, type Parameter } from './parameters';

/** One route of `v1Routers` as the document describes it. */
export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form: `{id}` for `:id`. */
  path: string;
  id: string;
  summary: string;
  tag: string;
  /** The scope the key needs; none for the event-type list and the sandbox advance (the resource's). */
  scope?: Scope;
  /** The ajv validator of the request body: the document carries its very schema. */
  body?: ValidateFunction;
  parameters?: Parameter[];
  /** The success status and its schema (a components.schemas name, or `List<Name>` for a list of Name). */
  success: { status: number; schema: string; description: string };
  /** Error statuses beyond those every operation can answer (errors.ts COMMON_ERRORS). */
  errors?: number[];
  /** `required`: a create that moves money; `optional`: a retried request answers the first one. */
  idempotency?: 'required' | 'optional';
  /** Served by the sandbox listener only (the live one answers 404). */
  sandboxOnly?: boolean;
  /** What else a client must know, appended to the operation's description. */
  notes?: string;
}

const list = (name: string) => `List<${name}>`;
const ok = (schema: string, description: string) => ({ status: 200, schema, description });
const money = [409, 413, 422];

/** GET /v1/events and its window (src/http/routes/events.ts, EVENTS_WALK_WINDOW). */
const EVENTS_WINDOW_NOTE =
  'The log is walkable for its window (EVENTS_WALK_WINDOW, default and at least 90 days): a position whose next event is older than the window ' +
  '(`after_sequence`, or a `cursor` of the newest-first walk) is answered 410 `events_expired`, never with a page that skips events; ' +
  'for `after_sequence` its message names the `after_sequence` to go on from (the oldest walkable event). ' +
  'The first page of a walk (no `after_sequence`, no `cursor`) is always answered; a page that begins inside the window is answered whole.';

/** GET /v1/events: what `type` does to each walk. */
const EVENTS_TYPE_NOTE =
  'With `type`, each walk answers only the events of those types, in the same order: sequences then have gaps (the other types), ' +
  'and the last `sequence` (or `next_cursor`) is still where to go on from, with the same `type`. ' +
  'The window applies to the filtered walk\'s own next event; the `after_sequence` a 410 names to go on from is the log\'s, valid with or without `type`.';

const EVENTS_QUERY = queryFromSchema(validateListEvents, [], { type: eventTypesDescription('type', 'events') });

const DELIVERIES_QUERY = [
  idParameter('webhookEndpoint'),
  ...queryFromSchema(validateListQuery, [], {
    event_type: eventTypesDescription('event_type', 'deliveries'),
    created_after: `Only deliveries created after this instant. ${INSTANT}`,
    created_before: `Only deliveries created before this instant. ${INSTANT} Later than created_after.`,
  }),
];

/** GET /v1/webhook-endpoints/{id}/deliveries: its filters and paging. */
const DELIVERIES_FILTER_NOTE = 'The filters (`status`, `event_type`, `created_after`, `created_before`) combine; send them again with each `cursor`.';

/** Webhook deliveries past their window (WEBHOOK_DELIVERY_RETENTION; docs/operations.md, Retention). */
const DELIVERY_RETENTION_NOTE = 'Ended deliveries are kept WEBHOOK_DELIVERY_RETENTION (default 90 days) after they were created, then deleted with their attempts: a deleted delivery is 404 `not_found` and no longer listed; its event stays in `GET /v1/events`.';

/** Recover (issue 49): what it resends and how progress is read. */
const RECOVER_NOTE =
  'Sends again, as one tracked recovery, every event created at or after `since` (up to the request) of a type the endpoint subscribes to whose last delivery to this endpoint (the fan-out delivery or its latest replay) is `failed` or `skipped`; pending and succeeded ones are not sent again. ' +
  'Each resend is a replay delivery (`replay_of` the last delivery), freshly signed when sent, retried on the delivery schedule. ' +
  '`since` in the future or before the events\' walkable window (EVENTS_WALK_WINDOW, default 90 days): 422 `recover_since_out_of_range`; a disabled endpoint: 409 `endpoint_disabled` (enable it first). Nothing is recovered then. ' +
  'Progress: GET /v1/webhook-endpoints/{id}/recoveries/{rid}.';

/** POST /v1/webhook-endpoints/{id}/skip (issue 49, FIFO). */
const SKIP_NOTE =
  'For an endpoint with `delivery_order: fifo`: marks the delivery of event `sequence` (its `fifo_sequence`, the `X-Service-Sequence` header of its attempts) skipped, so the events behind it are sent. ' +
  'A delivery already skipped is answered as it is (nothing written again). Delivered or ended already: 409 `delivery_not_waiting`, nothing changed. ' +
  'No delivery of that sequence in this endpoint\'s queue (the endpoint was not FIFO when the event was written, or the delivery is past retention): 404 `not_found` with param `sequence`. ' +
  'Audited as `webhook_delivery.skip`. A skipped event can be sent again later with POST /v1/webhook-deliveries/{id}/replay (out of order).';

/** `{rid}`: a recovery id (src/http/path-id.ts). */
const RECOVERY_ID: Parameter = { name: 'rid', in: 'path', required: true, description: 'The recovery id (`whr_…`).', schema: { type: 'string', pattern: `^${ID_PREFIX.webhookRecovery}[0-9A-Za-z]{24}$` } };

export const OPERATIONS: Operation[] = [
  { method: 'post', path: '/v1/charges', id: 'createCharge', summary: 'Create a charge', tag: 'Charges', scope: 'charges:write', body: validateCreateCharge, idempotency: 'required', success: ok('Charge', 'The charge, accepted.'), errors: [...money, 504] },
  { method: 'get', path: '/v1/charges', id: 'listCharges', summary: 'List charges, newest first', tag: 'Charges', scope: 'charges:read', parameters: listFilterParameters(CHARGE_LIST), success: ok(list('Charge'), 'A page of charges.') },
  { method: 'get', path: '/v1/charges/{id}', id: 'getCharge', summary: 'Get a charge', tag: 'Charges', scope: 'charges:read', parameters: [idParameter('charge')], success: ok('Charge', 'The charge.') },

  { method: 'post', path: '/v1/refunds', id: 'createRefund', summary: 'Refund a succeeded charge', tag: 'Refunds', scope: 'refunds:write', body: validateCreateRefund, idempotency: 'required', success: ok('Refund', 'The refund, accepted (pending).'), errors: money },
  { method: 'get', path: '/v1/refunds', id: 'listRefunds', summary: 'List refunds, newest first', tag: 'Refunds', scope: 'refunds:read', parameters: listFilterParameters(REFUND_LIST), success: ok(list('Refund'), 'A page of refunds.') },
  { method: 'get', path: '/v1/refunds/{id}', id: 'getRefund', summary: 'Get a refund', tag: 'Refunds', scope: 'refunds:read', parameters: [idParameter('refund')], success: ok('Refund', 'The refund.') },

  { method: 'get', path: '/v1/disputes', id: 'listDisputes', summary: 'List disputes, newest first', tag: 'Disputes', scope: 'disputes:read', parameters: listFilterParameters(DISPUTE_LIST), success: ok(list('Dispute'), 'A page of disputes.') },
  { method: 'get', path: '/v1/disputes/{id}', id: 'getDispute', summary: 'Get a dispute', tag: 'Disputes', scope: 'disputes:read', parameters: [idParameter('dispute')], success: ok('Dispute', 'The dispute.') },
  { method: 'post', path: '/v1/disputes/{id}/evidence', id: 'submitDisputeEvidence', summary: 'Submit evidence (once)', tag: 'Disputes', scope: 'disputes:write', parameters: [idParameter('dispute')], body: validateDisputeEvidence, success: ok('Dispute', 'The dispute, under review.'), errors: [409, 413] },

  { method: 'post', path: '/v1/payouts', id: 'createPayout', summary: 'Create a payout', tag: 'Payouts', scope: 'payouts:write', body: validateCreatePayout, idempotency: 'required', success: ok('Payout', 'The payout, accepted (pending or held for review).'), errors: money },
  { method: 'get', path: '/v1/payouts', id: 'listPayouts', summary: 'List payouts, newest first', tag: 'Payouts', scope: 'payouts:read', parameters: listFilterParameters(PAYOUT_LIST), success: ok(list('Payout'), 'A page of payouts.') },
  { method: 'get', path: '/v1/payouts/{id}', id: 'getPayout', summary: 'Get a payout', tag: 'Payouts', scope: 'payouts:read', parameters: [idParameter('payout')], success: ok('Payout', 'The payout.') },

  { method: 'get', path: '/v1/settlements', id: 'listSettlements', summary: 'List settlement batches, newest first', tag: 'Settlements', scope: 'settlements:read', parameters: listFilterParameters(SETTLEMENT_LIST), success: ok(list('Settlement'), 'A page of settlements.') },
  { method: 'get', path: '/v1/settlements/{id}', id: 'getSettlement', summary: 'Get a settlement batch', tag: 'Settlements', scope: 'settlements:read', parameters: [idParameter('settlement')], success: ok('Settlement', 'The settlement.') },
  { method: 'get', path: '/v1/settlements/{id}/entries', id: 'listSettlementEntries', summary: 'The ledger postings a batch swept, newest first', tag: 'Settlements', scope: 'settlements:read', parameters: [idParameter('settlement'), ...PAGE_PARAMETERS], success: ok(list('SettlementEntry'), 'A page of entries.') },

  { method: 'get', path: '/v1/balances', id: 'getBalance', summary: 'The balance of the key\'s environment', tag: 'Balances', scope: 'balances:read', success: ok('Balance', 'Available, pending and reserved amounts per currency.') },
  { method: 'get', path: '/v1/balance-transactions', id: 'listBalanceTransactions', summary: 'Postings that moved the available or reserved balance, newest first', tag: 'Balances', scope: 'balances:read', parameters: balanceTransactionParameters(), success: ok(list('BalanceTransaction'), 'A page of balance transactions.') },
  { method: 'get', path: '/v1/balance-transactions/{id}', id: 'getBalanceTransaction', summary: 'Get a balance transaction', tag: 'Balances', scope: 'balances:read', parameters: [{ ...idParameter('charge'), schema: { type: 'string', pattern: BALANCE_TRANSACTION_ID_PATTERN } }], success: ok('BalanceTransaction', 'The balance transaction.') },

  { method: 'get', path: '/v1/events', id: 'listEvents', summary: 'Walk the event log: oldest first after a sequence, or newest first by cursor', tag: 'Events', scope: 'events:read', parameters: EVENTS_QUERY, success: ok(list('Event'), 'A page of events, each the stored body byte for byte.'), errors: [410], notes: `${EVENTS_WINDOW_NOTE} ${EVENTS_TYPE_NOTE}` },
  { method: 'get', path: '/v1/event-types', id: 'listEventTypes', summary: 'Every event type', tag: 'Events', success: ok(list('EventType'), 'Every event type.') },

  { method: 'get', path: '/v1/reference/momo-networks', id: 'listMomoNetworks', summary: 'Mobile money networks', tag: 'Reference', scope: 'reference:read', success: ok(list('MomoNetwork'), 'Every network.') },
  { method: 'get', path: '/v1/reference/banks', id: 'listBanks', summary: 'Banks', tag: 'Reference', scope: 'reference:read', success: ok(list('Bank'), 'Every bank.') },
  { method: 'get', path: '/v1/reference/currencies', id: 'listCurrencies', summary: 'Currencies', tag: 'Reference', scope: 'reference:read', success: ok(list('Currency'), 'Every currency.') },
  { method: 'get', path: '/v1/reference/countries', id: 'listCountries', summary: 'Countries', tag: 'Reference', scope: 'reference:read', success: ok(list('Country'), 'Every country.') },

  { method: 'post', path: '/v1/webhook-endpoints', id: 'createWebhookEndpoint', summary: 'Register a webhook endpoint (its secret is shown once)', tag: 'Webhooks', scope: 'webhooks:write', body: validateCreateEndpoint, success: { status: 201, schema: 'WebhookEndpoint', description: 'The endpoint, with its signing secret.' }, errors: [413, 422] },
  { method: 'get', path: '/v1/webhook-endpoints', id: 'listWebhookEndpoints', summary: 'List webhook endpoints', tag: 'Webhooks', scope: 'webhooks:read', parameters: queryFromSchema(validateListQuery, DELIVERY_FILTERS), success: ok(list('WebhookEndpoint'), 'A page of endpoints.') },
  { method: 'get', path: '/v1/webhook-endpoints/{id}', id: 'getWebhookEndpoint', summary: 'Get a webhook endpoint', tag: 'Webhooks', scope: 'webhooks:read', parameters: [idParameter('webhookEndpoint')], success: ok('WebhookEndpoint', 'The endpoint.') },
  { method: 'patch', path: '/v1/webhook-endpoints/{id}', id: 'updateWebhookEndpoint', summary: 'Change an endpoint (`status: active` re-enables it)', tag: 'Webhooks', scope: 'webhooks:write', parameters: [idParameter('webhookEndpoint')], body: validateUpdateEndpoint, success: ok('WebhookEndpoint', 'The endpoint.'), errors: [413] },
  { method: 'delete', path: '/v1/webhook-endpoints/{id}', id: 'deleteWebhookEndpoint', summary: 'Delete an endpoint', tag: 'Webhooks', scope: 'webhooks:write', parameters: [idParameter('webhookEndpoint')], success: ok('DeletedWebhookEndpoint', 'The endpoint is deleted.') },
  { method: 'post', path: '/v1/webhook-endpoints/{id}/rotate-secret', id: 'rotateWebhookSecret', summary: 'Rotate the signing secret (the previous one stays valid 24 hours)', tag: 'Webhooks', scope: 'webhooks:write', parameters: [idParameter('webhookEndpoint')], success: ok('WebhookEndpoint', 'The endpoint, with its new signing secret.') },
  { method: 'post', path: '/v1/webhook-endpoints/{id}/recover', id: 'recoverWebhookEndpoint', summary: 'Send again every failed or skipped event since a time (one tracked recovery)', tag: 'Webhooks', scope: 'webhooks:write', parameters: [idParameter('webhookEndpoint')], body: validateRecoverEndpoint, idempotency: 'optional', success: { status: 202, schema: 'WebhookRecovery', description: 'The recovery, running.' }, errors: [409, 413, 422], notes: RECOVER_NOTE },
  { method: 'post', path: '/v1/webhook-endpoints/{id}/skip', id: 'skipWebhookEvent', summary: 'Skip the event a FIFO endpoint\'s queue holds (the ones behind it go on)', tag: 'Webhooks', scope: 'webhooks:write', parameters: [idParameter('webhookEndpoint')], body: validateSkipEvent, success: ok('WebhookDelivery', 'The delivery, skipped.'), errors: [409, 413], notes: SKIP_NOTE },
  { method: 'get', path: '/v1/webhook-endpoints/{id}/recoveries/{rid}', id: 'getWebhookRecovery', summary: 'A recovery with its live progress', tag: 'Webhooks', scope: 'webhooks:read', parameters: [idParameter('webhookEndpoint'), RECOVERY_ID], success: ok('WebhookRecovery', 'The recovery; its counts are read from its resends now.'), notes: DELIVERY_RETENTION_NOTE },
  { method: 'get', path: '/v1/webhook-endpoints/{id}/deliveries', id: 'listWebhookDeliveries', summary: 'An endpoint\'s deliveries, newest first', tag: 'Webhooks', scope: 'webhooks:read', parameters: DELIVERIES_QUERY, success: ok(list('WebhookDelivery'), 'A page of deliveries.'), notes: `${DELIVERY_RETENTION_NOTE} ${DELIVERIES_FILTER_NOTE}` },
  { method: 'get', path: '/v1/webhook-deliveries/{id}', id: 'getWebhookDelivery', summary: 'A delivery with its attempts', tag: 'Webhooks', scope: 'webhooks:read', parameters: [idParameter('delivery')], success: ok('WebhookDelivery', 'The delivery and its attempts.'), notes: DELIVERY_RETENTION_NOTE },
  { method: 'post', path: '/v1/webhook-deliveries/{id}/replay', id: 'replayWebhookDelivery', summary: 'Send a delivery\'s event again (a new delivery)', tag: 'Webhooks', scope: 'webhooks:write', parameters: [idParameter('delivery')], idempotency: 'optional', success: { status: 202, schema: 'WebhookDelivery', description: 'The new delivery, queued.' }, errors: [409, 422], notes: DELIVERY_RETENTION_NOTE },

  { method: 'post', path: '/v1/sandbox/advance/{id}', id: 'sandboxAdvance', summary: 'Fire the next timer of a payment workflow now', tag: 'Sandbox', parameters: [idParameter(['charge', 'payout', 'refund', 'settlement', 'dispute'], 'A charge, payout, refund, settlement or dispute id; the key needs that resource\'s write scope.')], success: ok('SandboxAdvance', 'The timer fired.'), errors: [409], sandboxOnly: true },
  { method: 'post', path: '/v1/sandbox/charges/{id}/disputes', id: 'sandboxOpenDispute', summary: 'The cardholder disputes a succeeded charge', tag: 'Sandbox', scope: 'disputes:write', parameters: [idParameter('charge')], body: validateOpenDispute, idempotency: 'required', success: ok('Dispute', 'The dispute, opened.'), errors: money, sandboxOnly: true },
];
