import { BALANCE_TRANSACTION_TYPES } from '../../domain/balance-transaction';
import { CHANNELS, CHARGE_STATUSES } from '../../domain/charge-status';
import { DISPUTE_REASONS, DISPUTE_STATUSES } from '../../domain/dispute';
import { FAILURE_CLASSES } from '../../domain/failure-classes';
import { PAYOUT_CHANNELS, PAYOUT_STATUSES } from '../../domain/payout';
import { REFUND_REASONS, REFUND_STATUSES } from '../../domain/refund';
import { SETTLEMENT_STATUSES } from '../../domain/settlement';
import { PARTNERS, SANDBOX_RAIL } from '../../domain/rail-routes';

/**
 * Response schemas of the payment objects (JSON Schema 2020-12, as OpenAPI 3.1 reads it), written
 * once from the domain's serialisers (chargeJson, payoutJson, …) and their vocabularies. Every field
 * the serialiser always writes is required; the optional ones are those it writes only sometimes.
 * Extra fields are allowed (a client must ignore fields it does not know).
 */
const id = (prefix: string) => ({ type: 'string', pattern: `^${prefix}_[0-9A-Za-z]+$` });
const instant = { type: 'string', format: 'date-time' };
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const currency = { type: 'string', pattern: '^[A-Z]{3}$' };
const amount = { type: 'integer', minimum: 0 };
const failureClass = { type: 'string', enum: [...FAILURE_CLASSES] };
const metadata = { type: 'object', description: 'The merchant\'s metadata, exactly as sent (key order kept).' };
const common = (object: string, prefix: string, statuses: readonly string[]) => ({
  id: id(prefix),
  object: { const: object },
  status: { type: 'string', enum: [...statuses] },
  amount,
  currency,
  livemode: { type: 'boolean' },
  created_at: instant,
  updated_at: instant,
  metadata,
});
const COMMON_REQUIRED = ['id', 'object', 'status', 'amount', 'currency', 'livemode', 'created_at', 'updated_at', 'metadata'];
/** Issue 45: which partner a charge, payout or refund went to (a refund: its charge's), or `sandbox`. */
const rail = { type: 'string', enum: [...PARTNERS, SANDBOX_RAIL], description: 'The partner the payment went to (`momo`: the mobile-money partner; `aggregator`: the card, bank and mobile-money aggregator), or `sandbox`. A refund goes back through its charge\'s.' };

/** Issue 46: a live payment's attempts at its partners, on the retrieval of one charge or payout. */
const attempts = {
  type: 'array',
  description:
    'Only when one live charge or payout is retrieved (`GET /v1/charges/{id}`, `GET /v1/payouts/{id}`; never in the sandbox, which has no partner): its attempts at its partners in order. The last is `current` (the one the payment follows); each earlier one was left, before it could move any money, for the next partner of its route: `not_reached` (the request never reached the partner) or `refused` (the partner refused it with a reason its error table marks retry-elsewhere). Empty before the first submission. docs/partner-rail.md, "Routing and failover".',
  items: {
    type: 'object',
    required: ['number', 'partner', 'reference', 'outcome', 'reason', 'next_partner', 'started_at', 'ended_at'],
    properties: {
      number: { type: 'integer', minimum: 1 },
      partner: { type: 'string', enum: [...PARTNERS] },
      reference: { type: 'string', format: 'uuid', description: 'Our reference of the attempt at the partner (X-Reference-Id, tx_ref).' },
      outcome: { type: 'string', enum: ['current', 'not_reached', 'refused'] },
      reason: nullable({ type: 'string' }),
      next_partner: nullable({ type: 'string', enum: [...PARTNERS] }),
      started_at: instant,
      ended_at: nullable(instant),
    },
  },
};

export const CHARGE = {
  type: 'object',
  required: [...COMMON_REQUIRED, 'reference', 'your_reference', 'customer_amount', 'merchant_amount', 'amount_refunded', 'fee', 'channel', 'momo_network_id', 'customer', 'action', 'description', 'failure_class', 'rail', 'card', 'expires_at'],
  properties: {
    ...common('charge', 'txn', CHARGE_STATUSES),
    rail,
    reference: { type: 'string' },
    your_reference: nullable({ type: 'string' }),
    customer_amount: amount,
    merchant_amount: { type: 'integer' },
    amount_refunded: amount,
    fee: { $ref: '#/components/schemas/Fee' },
    channel: { type: 'string', enum: [...CHANNELS] },
    momo_network_id: nullable({ type: 'string', format: 'uuid' }),
    customer: { type: 'object', required: ['masked', 'name'], properties: { masked: { type: 'string' }, name: nullable({ type: 'string' }) } },
    action: nullable({
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', description: 'What the customer does next: `prompt` (mobile money), `3ds_redirect` (card), `hosted_checkout` (bank).' }, url: { type: 'string' } },
    }),
    description: nullable({ type: 'string' }),
    failure_class: nullable(failureClass),
    card: nullable({
      type: 'object',
      required: ['brand', 'last4'],
      description: 'A live card charge\'s card once the customer sent it on the hosted page: its brand (`visa`, `mastercard`, `amex`, `verve`, …) and last four digits; never more of it. Null otherwise.',
      properties: { brand: { type: 'string' }, last4: { type: 'string', pattern: '^[0-9]{4}$' } },
    }),
    expires_at: instant,
    attempts,
  },
};

export const FEE = {
  type: 'object',
  required: ['platform', 'tax', 'bearer'],
  properties: { platform: amount, tax: amount, bearer: { const: 'merchant' } },
};

export const PAYOUT = {
  type: 'object',
  required: [...COMMON_REQUIRED, 'channel', 'recipient', 'your_reference', 'reference', 'description', 'fee', 'total_debit', 'rail'],
  properties: {
    ...common('payout', 'po', PAYOUT_STATUSES),
    rail,
    channel: { type: 'string', enum: [...PAYOUT_CHANNELS] },
    momo_network_id: { type: 'string', format: 'uuid' },
    bank_code: { type: 'string' },
    recipient: { type: 'object', required: ['masked', 'name'], properties: { masked: { type: 'string' }, name: { type: 'string' } } },
    your_reference: { type: 'string' },
    reference: { type: 'string' },
    description: nullable({ type: 'string' }),
    fee: { $ref: '#/components/schemas/Fee' },
    total_debit: amount,
    review: {
      type: 'object',
      required: ['decision', 'reason', 'decided_at'],
      properties: { decision: { type: 'string' }, reason: { type: 'string' }, decided_at: instant },
    },
    failure_class: failureClass,
    attempts,
  },
};

export const REFUND = {
  type: 'object',
  required: [...COMMON_REQUIRED, 'charge', 'reason', 'rail'],
  properties: {
    ...common('refund', 're', REFUND_STATUSES),
    rail,
    charge: id('txn'),
    reason: nullable({ type: 'string', enum: [...REFUND_REASONS] }),
    failure_class: failureClass,
  },
};

export const SETTLEMENT = {
  type: 'object',
  required: [...COMMON_REQUIRED, 'entry_count', 'period_end', 'destination', 'paid_at'],
  properties: {
    ...common('settlement', 'stl', SETTLEMENT_STATUSES),
    entry_count: { type: 'integer', minimum: 0 },
    period_end: { type: 'string' },
    destination: { type: 'object', required: ['bank_code', 'account_masked'], properties: { bank_code: { type: 'string' }, account_masked: { type: 'string' } } },
    paid_at: nullable(instant),
    failure_class: failureClass,
  },
};

export const SETTLEMENT_ENTRY = {
  type: 'object',
  required: ['object', 'transfer_id', 'kind', 'source', 'amount', 'created_at'],
  properties: {
    object: { const: 'settlement_entry' },
    transfer_id: { type: 'string' },
    kind: { type: 'string' },
    source: { type: 'string', description: 'The resource whose ledger transfer it is (a charge, payout, refund, dispute, an earlier settlement).' },
    amount: { type: 'integer' },
    created_at: instant,
  },
};

export const DISPUTE = {
  type: 'object',
  required: [...COMMON_REQUIRED, 'charge', 'reason', 'evidence_due_by', 'evidence'],
  properties: {
    ...common('dispute', 'dp', DISPUTE_STATUSES),
    charge: id('txn'),
    reason: { type: 'string', enum: [...DISPUTE_REASONS] },
    evidence_due_by: nullable(instant),
    evidence: nullable({ type: 'object', required: ['text', 'submitted_at'], properties: { text: { type: 'string' }, submitted_at: instant } }),
  },
};

const balanceAmounts = {
  type: 'array',
  items: { type: 'object', required: ['currency', 'amount'], properties: { currency, amount: { type: 'integer' } } },
};

export const BALANCE = {
  type: 'object',
  required: ['object', 'livemode', 'available', 'pending', 'reserved'],
  properties: { object: { const: 'balance' }, livemode: { type: 'boolean' }, available: balanceAmounts, pending: balanceAmounts, reserved: balanceAmounts },
};

export const BALANCE_TRANSACTION = {
  type: 'object',
  required: ['id', 'object', 'type', 'source', 'balance', 'amount', 'fee', 'net', 'currency', 'created_at'],
  properties: {
    id: { type: 'string', pattern: '^bt_' },
    object: { const: 'balance_transaction' },
    type: { type: 'string', enum: [...BALANCE_TRANSACTION_TYPES] },
    source: { type: 'string' },
    balance: { type: 'string', enum: ['available', 'reserved'] },
    amount: { type: 'integer' },
    fee: { type: 'integer' },
    net: { type: 'integer' },
    currency,
    created_at: instant,
  },
};
