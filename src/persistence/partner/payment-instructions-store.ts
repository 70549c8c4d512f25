import type { EntityManager } from '@mikro-orm/postgresql';
import type { PaymentInstructions } from '../../rail/partner-rail';
import type { Orm } from '../orm';

/**
 * A live collection's payment instructions as the partner last gave them (issue 45; migration
 * 20261216000003): written whenever a submission or a status carries them (a repeat rewrites the
 * same row), read by the hosted checkout page of a live bank charge.
 */
export async function recordInstructions(em: Pick<EntityManager, 'execute'>, paymentId: string, i: PaymentInstructions): Promise<void> {
  await em.execute(
    `insert into payment_instructions (payment_id, kind, bank_name, account_number, account_name, amount, currency, expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (payment_id) do update set bank_name = excluded.bank_name, account_number = excluded.account_number, account_name = excluded.account_name,
       amount = excluded.amount, currency = excluded.currency, expires_at = excluded.expires_at, recorded_at = now()`,
    [paymentId, i.kind, i.bankName, i.accountNumber, i.accountName, i.amount, i.currency, i.expiresAt],
  );
}

/** The instructions of a payment, or null while the partner has given none. */
export async function findInstructions(orm: Orm, paymentId: string): Promise<PaymentInstructions | null> {
  const rows = await orm.em.getConnection().execute<Array<{ kind: 'bank_transfer'; bank_name: string; account_number: string; account_name: string | null; amount: string; currency: string; expires_at: Date | string }>>(
    `select kind, bank_name, account_number, account_name, amount::text as amount, currency, expires_at from payment_instructions where payment_id = ?`,
    [paymentId],
  );
  const r = rows[0];
  return r ? { kind: r.kind, bankName: r.bank_name, accountNumber: r.account_number, accountName: r.account_name, amount: Number(r.amount), currency: r.currency, expiresAt: new Date(r.expires_at).toISOString() } : null;
}
