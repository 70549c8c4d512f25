import type { RailStepRequest } from '../../domain/live-rail';
import type { RailParty, RailRequest } from '../../rail/partner-rail';
import { isReferenceId } from '../../rail/momo-protocol';
import type { SecretBox } from '../../support/secret-box';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../orm';
import { paymentParty } from '../payment-party-store';
import { newUuid } from '../../support/new-id';

/** What a rail step sends, read from the database, and the payment's partner reference. */
export interface StoredRailRequest {
  referenceId: string;
  /** Whether this call chose the reference: false when an earlier call had (a retry, or a restarted run's first step), so a request may already have reached the partner. */
  made: boolean;
  /** When the reference was chosen (ISO): right before the payment's first submission. */
  createdAt: string;
  /** The partner of the current attempt (issue 46: a failover moves the payment to the next). */
  partner: string;
  /** The current attempt, from 1. */
  attempt: number;
  railRequest: Omit<RailRequest, 'referenceId'>;
}

type PaymentRow = {
  environment: string;
  /** The payment's partner (issue 45; null: a row from before, the mobile-money partner's). */
  rail: string | null;
  /** A refund: the charge it refunds (its payer gets the money back) and that charge's partner reference. */
  charge_id?: string | null;
  refunded_reference?: string | null;
  amount: string;
  currency: string;
  merchant_name: string;
  channel: string | null;
  bank_code: string | null;
  sealed_account: string | null;
  plain_account: string | null;
  /** A charge: when it expires (a bank transfer's account stays open until then). */
  expires_at?: Date | string | null;
};

/** A phone number as the partner takes it (MSISDN): digits only, country code included. */
function msisdn(identifier: string): string {
  return identifier.replace(/[^0-9]/g, '');
}

async function paymentRow(orm: Orm, id: string): Promise<PaymentRow> {
  const db = orm.em.getConnection();
  const [row] = id.startsWith('txn_')
    ? await db.execute<PaymentRow[]>(
        `select c.environment, c.amount::text as amount, c.currency, m.name as merchant_name, c.channel, null as bank_code, null as sealed_account, null as plain_account, c.rail, c.expires_at
         from charges c join merchants m on m.id = c.merchant_id where c.id = ?`,
        [id],
      )
    : id.startsWith('po_')
      ? await db.execute<PaymentRow[]>(
          `select p.environment, p.amount::text as amount, p.currency, m.name as merchant_name, p.channel, p.bank_code, null as sealed_account, null as plain_account, p.rail
           from payouts p join merchants m on m.id = p.merchant_id where p.id = ?`,
          [id],
        )
      : id.startsWith('re_')
        ? await db.execute<PaymentRow[]>(
            `select r.environment, r.amount::text as amount, r.currency, m.name as merchant_name, c.channel, null as bank_code, null as sealed_account, null as plain_account,
               coalesce(r.rail, c.rail) as rail, r.charge_id, (select x.reference_id::text from rail_references x where x.payment_id = r.charge_id) as refunded_reference
             from refunds r join charges c on c.id = r.charge_id join merchants m on m.id = r.merchant_id where r.id = ?`,
            [id],
          )
      : await db.execute<PaymentRow[]>(
          `select s.environment, s.amount::text as amount, s.currency, m.name as merchant_name, 'bank' as channel, s.destination_bank_code as bank_code,
             s.destination_account_sealed as sealed_account, s.destination_account_number as plain_account, s.rail
           from settlements s join merchants m on m.id = s.merchant_id where s.id = ?`,
          [id],
        );
  if (!row) throw new Error(`payment ${id} does not exist`);
  return row;
}

async function partyOf(orm: Orm, box: SecretBox, id: string, row: PaymentRow): Promise<RailParty> {
  if (id.startsWith('stl_')) {
    const account = row.sealed_account ? box.open(row.sealed_account) : row.plain_account;
    if (!account || !row.bank_code) throw new Error(`settlement ${id} has no destination account`);
    return { partyIdType: 'BANK_ACCOUNT', partyId: `${row.bank_code}:${account}` };
  }
  // Issue 45: a live card charge's payer is its card, known by its last four digits only (the hosted
  // page sent the number to the aggregator; no table holds it). A refund of it names the same.
  if (row.channel === 'card') {
    const [card] = await orm.em.getConnection().execute<Array<{ last4: string | null }>>(`select last4 from card_submissions where charge_id = ?`, [row.charge_id ?? id]);
    if (!card?.last4) throw new Error(`payment ${id}: its card charge never had a card submitted, so there is no payer to name`);
    return { partyIdType: 'CARD', partyId: card.last4 };
  }
  // A refund pays back the charge's payer: the party on record is the charge's.
  const identifier = await paymentParty(orm, box, row.charge_id ?? id);
  if (identifier === null) throw new Error(`payment ${id} has no counterparty on record (created before issue 20): it cannot go to the partner rail`);
  if (row.channel === 'bank' && row.bank_code) return { partyIdType: 'BANK_ACCOUNT', partyId: `${row.bank_code}:${identifier.replace(/\s/g, '')}` };
  // Issue 45: a bank charge's payer is an account (the API names no bank for it), never a phone number.
  if (row.channel === 'bank') return { partyIdType: 'BANK_ACCOUNT', partyId: identifier.replace(/\s/g, '') };
  return { partyIdType: 'MSISDN', partyId: msisdn(identifier) };
}

/**
 * The payment's rail request and its partner reference: a UUID chosen on the first call and kept
 * (`rail_references`), so a retried request is the same request; `made` says whether this call chose
 * it. `send` (issue 46): the caller is about to submit it, so the reference's `sends` is counted
 * first, in its own statement (a submission that never says how it ended still counts: only a
 * reference whose every send provably never reached the partner may fail over). Throws for an
 * unknown payment.
 */
export async function railRequestFor(orm: Orm, box: SecretBox, request: RailStepRequest, send = false): Promise<StoredRailRequest> {
  const row = await paymentRow(orm, request.paymentId);
  // One statement: the insert and the update see the same snapshot, so exactly one row comes back.
  const [ref] = await orm.em.getConnection().execute<Array<{ reference_id: string; made: boolean; created_at: Date | string; partner: string | null; attempt: number }>>(
    `with made as (
       insert into rail_references (payment_id, product, reference_id, environment, partner, sends) values (?, ?, ?::uuid, ?, ?, ?)
       on conflict (payment_id) do nothing returning reference_id, created_at, partner, attempt),
     counted as (
       update rail_references set sends = sends + 1 where payment_id = ? and ?::boolean returning reference_id, created_at, partner, attempt)
     select reference_id::text, true as made, created_at, partner, attempt from made
     union all select reference_id::text, false as made, created_at, partner, attempt from counted
     union all select reference_id::text, false as made, created_at, partner, attempt from rail_references where payment_id = ? and not ?::boolean`,
    [request.paymentId, request.product, newUuid(), row.environment, row.rail === 'aggregator' ? 'aggregator' : 'momo', send ? 1 : 0, request.paymentId, send, request.paymentId, send],
  );
  const party = await partyOf(orm, box, request.paymentId, row);
  const message = request.product === 'collection' ? `Payment to ${row.merchant_name}` : request.product === 'refund' ? `Refund from ${row.merchant_name}` : `From ${row.merchant_name}`;
  if (request.product === 'refund' && !row.refunded_reference) throw new Error(`refund ${request.paymentId}: its charge ${row.charge_id ?? '(none)'} never went to the partner rail, so there is no request-to-pay to refund`);
  return {
    referenceId: ref.reference_id,
    made: ref.made,
    partner: ref.partner ?? 'momo',
    attempt: ref.attempt,
    createdAt: new Date(ref.created_at).toISOString(),
    railRequest: {
      amount: Number(row.amount),
      currency: row.currency,
      externalId: request.paymentId,
      party,
      message: message.slice(0, 160),
      ...(row.refunded_reference ? { referenceIdToRefund: row.refunded_reference } : {}),
      ...(row.expires_at ? { expiresAt: new Date(row.expires_at).toISOString() } : {}),
    },
  };
}

/**
 * The payment a partner reference belongs to (the callback route's lookup); null when unknown. Issue
 * 46: a reference of an attempt the payment left (`rail_attempts`) still finds it: a callback for it
 * is a wake-up like any other, and the workflow asks its current attempt.
 */
export async function paymentOfReference(orm: Orm, product: string, referenceId: string): Promise<{ paymentId: string; environment: string } | null> {
  if (!isReferenceId(referenceId)) return null;
  const rows = await orm.em.getConnection().execute<Array<{ payment_id: string; environment: string }>>(
    `select payment_id, environment from rail_references where product = ? and reference_id = ?::uuid
     union all select payment_id, environment from rail_attempts where product = ? and reference_id = ?::uuid limit 1`,
    [product, referenceId, product, referenceId],
  );
  return rows[0] ? { paymentId: rows[0].payment_id, environment: rows[0].environment } : null;
}

/** Whether the payment already has a partner reference: an earlier attempt chose it, so a request may have reached the partner. */
export async function hasRailReference(orm: Orm, paymentId: string): Promise<boolean> {
  const rows = await orm.em.getConnection().execute<Array<{ one: number }>>(`select 1 as one from rail_references where payment_id = ?`, [paymentId]);
  return rows.length > 0;
}

/**
 * Keeps the partner's transaction id of a payment (its status's financialTransactionId, or a
 * statement line's): the first one seen is kept; a different one later is answered, not overwritten.
 * Answers the id on record.
 */
export async function recordPartnerTransactionId(em: Pick<EntityManager, 'execute'>, paymentId: string, financialTransactionId: string): Promise<string | null> {
  const rows = await em.execute<Array<{ partner_transaction_id: string | null }>>(
    `update rail_references set partner_transaction_id = coalesce(partner_transaction_id, ?) where payment_id = ? returning partner_transaction_id`,
    [financialTransactionId, paymentId],
  );
  return rows[0]?.partner_transaction_id ?? null;
}
