import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Checks a balanced ledger cannot make by itself (review finding 3 of issue 18): a reservation that
 * is never released still balances. Run inside the ledger check's one snapshot.
 */

/** A finished charge, payout or refund without the transfers its status implies. */
export interface UnfinishedResource {
  resource_id: string;
  status: string;
  /** The transfer ids that should exist and do not. */
  missing: string[];
}

/** A reserved balance that differs from what is open against it. */
export interface ReservedMismatch {
  merchant_id: string;
  environment: string;
  currency: string;
  reserved: string;
  /** Open payouts (total debit) + pending refunds + open disputes + pending settlements. */
  open: string;
}

/** An available balance that differs from the sum of its postings no settlement swept yet. */
export interface UnsweptMismatch {
  merchant_id: string;
  environment: string;
  currency: string;
  available: string;
  unswept: string;
}

export interface ResourceProblems {
  unfinishedResources: UnfinishedResource[];
  reservedMismatches: ReservedMismatch[];
  unsweptMismatches: UnsweptMismatch[];
}

const has = (suffix: string) => `exists (select 1 from ledger_entries le where le.transfer_id = r.id || '${suffix}')`;

/** Every payout and refund has its reserve; a succeeded (or reversed) one its post, a failed one its release. */
const UNFINISHED = `
  select r.id as resource_id, r.status, array_remove(array[
      case when not ${has(':reserve')} then r.id || ':reserve' end,
      case when r.status in ('succeeded', 'reversed') and not ${has(':post')} then r.id || ':post' end,
      case when r.status = 'failed' and not ${has(':release')} then r.id || ':release' end
    ], null) as missing
  from (select id, status from payouts union all select id, status from refunds) r`;

/** Charge statuses that end its pending hold (charge-store.ts `transfersFor`: each posts the hold's void). */
const CHARGE_ENDED = `('succeeded', 'failed', 'expired', 'reversed')`;

/**
 * A charge whose hold was posted and that ended (succeeded, failed, expired, reversed) has voided it:
 * an open hold is money shown as pending to a merchant for a charge that will never pay it. A
 * succeeded or reversed charge has its capture; a reversed one its capture's reversal. (A charge row
 * written without its hold is the charge store's business; only what the status implies is checked.)
 */
const UNFINISHED_CHARGES = `
  select r.id as resource_id, r.status, array_remove(array[
      case when r.status in ${CHARGE_ENDED} and ${has(':hold')} and not ${has(':hold_void')} then r.id || ':hold_void' end,
      case when r.status in ('succeeded', 'reversed') and not ${has(':capture')} then r.id || ':capture' end,
      case when r.status = 'reversed' and not ${has(':capture_reversal')} then r.id || ':capture_reversal' end
    ], null) as missing
  from charges r`;

const OPEN_AGAINST_RESERVED = `
  select merchant_id, environment, currency, sum(amount)::numeric as amount from (
    select merchant_id, environment, currency, total_debit as amount from payouts where status in ('pending', 'held_for_review')
    union all select merchant_id, environment, currency, amount from refunds where status = 'pending'
    union all select merchant_id, environment, currency, amount from disputes where status in ('needs_response', 'under_review')
    union all select merchant_id, environment, currency, amount from settlements where status = 'pending'
  ) o group by merchant_id, environment, currency`;

const balanceOf = (account: string) => `select merchant_id, environment, currency, amount::numeric as amount from account_balances where account = '${account}'`;

const UNSWEPT = `
  select le.merchant_id, le.environment, le.currency, sum(le.amount::numeric) as amount
  from ledger_entries le
  where le.account = 'merchant_available'
    and not exists (select 1 from settlement_entries se where se.transfer_id = le.transfer_id and se.account = le.account)
  group by le.merchant_id, le.environment, le.currency`;

export async function readResourceProblems(em: EntityManager): Promise<ResourceProblems> {
  const unfinishedResources = await em.execute<UnfinishedResource[]>(
    `select * from (${UNFINISHED} union all ${UNFINISHED_CHARGES}) u where cardinality(missing) > 0 order by resource_id`,
  );
  const reservedMismatches = await em.execute<ReservedMismatch[]>(
    `select merchant_id, environment, currency, coalesce(b.amount, 0)::text as reserved, coalesce(o.amount, 0)::text as open
     from (${balanceOf('merchant_reserved')}) b full outer join (${OPEN_AGAINST_RESERVED}) o using (merchant_id, environment, currency)
     where coalesce(b.amount, 0) <> coalesce(o.amount, 0) order by merchant_id, environment, currency`,
  );
  const unsweptMismatches = await em.execute<UnsweptMismatch[]>(
    `select merchant_id, environment, currency, coalesce(b.amount, 0)::text as available, coalesce(u.amount, 0)::text as unswept
     from (${balanceOf('merchant_available')}) b full outer join (${UNSWEPT}) u using (merchant_id, environment, currency)
     where coalesce(b.amount, 0) <> coalesce(u.amount, 0) order by merchant_id, environment, currency`,
  );
  return { unfinishedResources, reservedMismatches, unsweptMismatches };
}
