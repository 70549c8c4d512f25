import type { EntityManager } from '@mikro-orm/postgresql';
import type { Channel, ChargeStatus } from '../../domain/charge-status';
import type { CheckoutDecision } from '../../domain/hosted-checkout';
import type { Orm } from '../orm';

/**
 * The single-use tokens of hosted checkout (`checkout_tokens`, migration 20261128000005): only the
 * sha256 of a token is stored or looked up; the token itself is never written or logged.
 */

/** Written in the charge's create transaction (src/services/create-charge.ts), with the charge's expiry. */
export async function insertCheckoutToken(em: EntityManager, tokenHash: string, chargeId: string, expiresAt: string): Promise<void> {
  await em.execute(`insert into checkout_tokens (token_hash, charge_id, expires_at) values (?, ?, ?)`, [tokenHash, chargeId, expiresAt]);
}

/** What the checkout page shows, and whether it may still decide. */
export interface CheckoutView {
  chargeId: string;
  /** A live charge's page shows the partner's instructions and takes no decision (issue 45). */
  environment: 'sandbox' | 'live';
  merchantName: string;
  amount: number;
  currency: string;
  channel: Channel;
  chargeStatus: ChargeStatus;
  expiresAt: string;
  usedAt: string | null;
  /** expires_at is past, on the database's clock (the one the claim checks). */
  expired: boolean;
}

interface ViewRow {
  charge_id: string;
  environment: 'sandbox' | 'live';
  merchant_name: string;
  amount: string | number;
  currency: string;
  channel: Channel;
  status: ChargeStatus;
  expires_at: Date | string;
  used_at: Date | string | null;
  expired: boolean;
}

const iso = (value: Date | string): string => new Date(value).toISOString();

/** The token's charge and merchant, or null for a token never issued. Writes nothing. */
export async function findCheckout(orm: Orm, tokenHash: string): Promise<CheckoutView | null> {
  const rows = await orm.em.getConnection().execute<ViewRow[]>(
    `select t.charge_id, c.environment, m.name as merchant_name, c.amount, c.currency, c.channel, c.status, t.expires_at, t.used_at, t.expires_at <= now() as expired
       from checkout_tokens t join charges c on c.id = t.charge_id join merchants m on m.id = c.merchant_id
      where t.token_hash = ?`,
    [tokenHash],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    chargeId: row.charge_id,
    environment: row.environment,
    merchantName: row.merchant_name,
    amount: Number(row.amount),
    currency: row.currency,
    channel: row.channel,
    chargeStatus: row.status,
    expiresAt: iso(row.expires_at),
    usedAt: row.used_at === null ? null : iso(row.used_at),
    expired: row.expired,
  };
}

/**
 * Marks the token used with the customer's decision, once: answers the charge id, or null when the
 * token is unknown, already used or expired (then nothing changed). One statement, so two
 * concurrent decisions cannot both win.
 */
export async function claimCheckout(orm: Orm, tokenHash: string, decision: CheckoutDecision): Promise<string | null> {
  const rows = await orm.em.getConnection().execute<Array<{ charge_id: string }>>(
    `update checkout_tokens set used_at = now(), decision = ? where token_hash = ? and used_at is null and expires_at > now() returning charge_id`,
    [decision, tokenHash],
  );
  return rows[0]?.charge_id ?? null;
}

/** Undoes a claim whose signal never reached the workflow (nothing was decided): the link works again until expiry. */
export async function releaseCheckout(orm: Orm, tokenHash: string): Promise<void> {
  await orm.em.getConnection().execute(`update checkout_tokens set used_at = null, decision = null where token_hash = ?`, [tokenHash]);
}
