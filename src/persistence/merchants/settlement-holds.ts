import type { Orm } from '../orm';

/** A merchant whose live settlements are held after its settlement account was replaced (issue 43). */
export interface SettlementHold {
  merchantId: string;
  /** The hold's end: the first settlement run after it pays the live balances to the new account. */
  heldUntil: string;
  /** The change (from its operator_audit row `merchant.settings_update`), when found. */
  changedAt: string | null;
  operator: string | null;
  /** The account now: bank code and masked number only. */
  account: string | null;
}

/**
 * Every hold in force, oldest change first, for `payments stuck` (src/services/stuck-payments.ts):
 * the merchant's latest `merchant.settings_update` row that replaced the account names when and by whom.
 */
export async function settlementHoldsInForce(orm: Orm): Promise<SettlementHold[]> {
  const rows = await orm.em.fork().execute<Array<{ id: string; held_until: Date | string; created_at: Date | string | null; operator: string | null; account: string | null }>>(
    `select m.id, m.settlement_held_until as held_until, a.created_at, a.operator,
            m.settlement_bank_code || ' ' || m.settlement_account_masked as account
     from merchants m
     left join lateral (select created_at, operator from operator_audit
                         where merchant_id = m.id and action = 'merchant.settings_update' and state_after ->> 'settlement_held_until' is not null
                         order by created_at desc limit 1) a on true
     where m.settlement_held_until > now()
     order by m.settlement_held_until, m.id`,
    [],
  );
  const iso = (v: Date | string) => new Date(v).toISOString();
  return rows.map((r) => ({ merchantId: r.id, heldUntil: iso(r.held_until), changedAt: r.created_at === null ? null : iso(r.created_at), operator: r.operator, account: r.account }));
}

/** What `payments stuck` says of a hold: why the merchant is not settled, and what to do. */
export function settlementHoldReason(hold: SettlementHold): string {
  const change = hold.changedAt ? ` at ${hold.changedAt}${hold.operator ? ` by ${hold.operator}` : ''}` : '';
  return (
    `settlement account changed${change}${hold.account ? ` (now ${hold.account})` : ''}: live settlements are held until ${hold.heldUntil} (SETTLEMENT_ACCOUNT_HOLD), against account takeover; ` +
    `its live balances stay available and the first run after that pays them. To do: confirm the change with the merchant through a channel on file (not the new details); ` +
    `if it did not ask for it, set the account back (merchants set ${hold.merchantId} --settlement-bank CODE --settlement-account NUMBER --reason TEXT --operator NAME, which holds again) and see audit list --merchant ${hold.merchantId}`
  );
}

/** The end of the merchant's hold while it is in force, else null. */
export async function settlementHeldUntil(orm: Orm, merchantId: string): Promise<string | null> {
  const rows = await orm.em.fork().execute<Array<{ held_until: Date | string }>>(`select settlement_held_until as held_until from merchants where id = ? and settlement_held_until > now()`, [merchantId]);
  return rows[0] ? new Date(rows[0].held_until).toISOString() : null;
}
