import type { Invariant } from '../types';

/**
 * Refunds and disputes within their charge (issue 44: "refunds above their charge still give
 * consistent books"): for every charge, its pending and succeeded refunds plus its open and lost
 * disputes never add up to more than its amount (the rule refund-create-store.ts and
 * dispute-create-store.ts hold under the charge's lock). Bursts of concurrent refunds (steps/burst.ts)
 * try it. Reads the database.
 */
export const refundsWithinCharge: Invariant = {
  name: 'refunds and disputes within their charge',
  async check(ctx) {
    const rows = await ctx.orm.em.getConnection().execute<Array<{ id: string; amount: string; committed: string }>>(
      `select c.id, c.amount::text as amount,
              ((select coalesce(sum(r.amount), 0) from refunds r where r.charge_id = c.id and r.status in ('pending', 'succeeded'))
             + (select coalesce(sum(d.amount), 0) from disputes d where d.charge_id = c.id and d.status in ('needs_response', 'under_review', 'lost')))::text as committed
         from charges c
        where exists (select 1 from refunds r where r.charge_id = c.id) or exists (select 1 from disputes d where d.charge_id = c.id)`,
    );
    return rows
      .filter((r) => Number(r.committed) > Number(r.amount))
      .map((r) => `charge ${r.id}: refunds and disputes commit ${r.committed} of its ${r.amount}`);
  },
};

/** An answer the key stores and replays (INTERFACE "Idempotency"): a 2xx, or a 504 `partner_timeout` naming its charge. */
const isStored = (a: { status: number; id?: string; code?: string }) => (a.status >= 200 && a.status < 300) || (a.status === 504 && a.code === 'partner_timeout' && !!a.id);

/**
 * One resource per Idempotency-Key: a burst of one request sent at once under one key
 * (steps/burst.ts `same_key_charge`) made at most one object: every stored answer (a 2xx, or the
 * sandbox `indeterminate` outcome's 504 `partner_timeout`) names the same id with the same status,
 * and every other answer is 409 `idempotency_key_in_use` (INTERFACE: the first request with that key
 * is still being processed). Reads the registry.
 */
export const oneResourcePerKey: Invariant = {
  name: 'one resource per Idempotency-Key',
  async check(ctx) {
    const lines: string[] = [];
    for (const burst of ctx.registry.bursts) {
      const stored = burst.answers.filter(isStored);
      const ids = new Set(stored.map((a) => a.id));
      if (ids.size > 1) lines.push(`step ${burst.n}, key ${burst.idempotencyKey}: ${ids.size} objects made (${[...ids].join(', ')})`);
      const statuses = new Set(stored.map((a) => a.status));
      if (statuses.size > 1) lines.push(`step ${burst.n}, key ${burst.idempotencyKey}: the stored answer differs between requests (${[...statuses].join(', ')})`);
      for (const a of burst.answers) {
        if (!isStored(a) && !(a.status === 409 && a.code === 'idempotency_key_in_use')) lines.push(`step ${burst.n}, key ${burst.idempotencyKey}: answered ${a.status} ${a.code ?? ''}`.trimEnd());
      }
    }
    return lines;
  },
};

/**
 * Payouts at once never overdraw: after a burst of payouts of one merchant (steps/burst.ts `payouts`),
 * each of more than half its available balance, the available balance is not below zero (the create
 * locks the balance row: docs/architecture.md "No overdraft"). Only the burst's own figures are read:
 * elsewhere a lost dispute may take available below zero by design. Reads the registry.
 */
export const payoutsNeverOverdraw: Invariant = {
  name: 'payouts at once never overdraw',
  async check(ctx) {
    return ctx.registry.balanceRaces
      .filter((r) => r.before >= 0 && r.after < 0)
      .map((r) => `step ${r.n}: merchant ${r.merchant}'s available went from ${r.before} to ${r.after} with payouts sent at once`);
  },
};
