import type { FailureClass } from '../../domain/failure-classes';
import type { Orm } from '../orm';
import type { SecretBox } from '../../support/secret-box';
import { newUuid } from '../../support/new-id';

/**
 * A live card charge's one submission to the aggregator (issue 45; migration 20261216000005): the
 * hosted page claims it before it sends the card, the charge workflow closes the window at expiry
 * without one; one row per charge, so exactly one of the two wins. No card number, no security code.
 */

export type CardOutcome = 'accepted' | 'duplicate' | 'refused' | 'no_answer';
export type CardChallengeMode = 'otp' | 'redirect';

export interface CardSubmission {
  chargeId: string;
  state: 'submitted' | 'closed';
  brand: string | null;
  last4: string | null;
  outcome: CardOutcome | null;
  reason: string | null;
  failureClass: FailureClass | null;
  challenge: CardChallengeMode | null;
  challengeUrl: string | null;
  flwRef: string | null;
  otpSent: boolean;
  /** When the page claimed the charge (ISO): the card went out right after. */
  createdAt: string;
}

export type CardClaim =
  /** This call claimed the charge: send the card with this reference (the charge's tx_ref). */
  | { kind: 'claimed'; referenceId: string }
  /** A card was sent already, or the window closed, or the charge is not a live card charge awaiting its card. */
  | { kind: 'taken'; why: 'submitted' | 'closed' | 'not_waiting' };

/**
 * Claims a live card charge for its one submission: the charge must be live, card, on the aggregator
 * and `awaiting_action` (locked while this runs); the row and the charge's partner reference are
 * written in one transaction. Nothing of the card but its brand and last four digits.
 */
export async function claimCardSubmission(orm: Orm, chargeId: string, card: { brand: string; last4: string }): Promise<CardClaim> {
  return orm.em.fork().transactional(async (em) => {
    const charges = await em.execute<Array<{ status: string }>>(
      `select status from charges where id = ? and environment = 'live' and channel = 'card' and rail = 'aggregator' for update`,
      [chargeId],
    );
    if (charges[0]?.status !== 'awaiting_action') return { kind: 'taken', why: 'not_waiting' } as const;
    const inserted = await em.execute<Array<{ charge_id: string }>>(
      `insert into card_submissions (charge_id, state, brand, last4) values (?, 'submitted', ?, ?) on conflict (charge_id) do nothing returning charge_id`,
      [chargeId, card.brand, card.last4],
    );
    if (inserted.length === 0) {
      const [row] = await em.execute<Array<{ state: 'submitted' | 'closed' }>>(`select state from card_submissions where charge_id = ?`, [chargeId]);
      return { kind: 'taken', why: row?.state ?? 'submitted' } as const;
    }
    // The charge object shows which card paid (migration 20261216000006): brand and last four only.
    await em.execute(`update charges set card_brand = ?, card_last4 = ? where id = ?`, [card.brand, card.last4, chargeId]);
    const [ref] = await em.execute<Array<{ reference_id: string }>>(
      `insert into rail_references (payment_id, product, reference_id, environment, partner) values (?, 'collection', ?::uuid, 'live', 'aggregator') returning reference_id::text`,
      [chargeId, newUuid()],
    );
    return { kind: 'claimed', referenceId: ref.reference_id } as const;
  });
}

export interface CardAnswerRecord {
  outcome: CardOutcome;
  reason?: string;
  failureClass?: FailureClass;
  token?: string;
  brand?: string;
  challenge?: { mode: 'otp'; flwRef?: string } | { mode: 'redirect'; url: string; flwRef?: string };
}

/** The aggregator's answer to the page's submission (the token sealed). A repeat overwrites with the same answer. */
export async function recordCardAnswer(orm: Orm, box: SecretBox, chargeId: string, answer: CardAnswerRecord): Promise<void> {
  await orm.em.getConnection().execute(
    `update card_submissions set outcome = ?, reason = ?, failure_class = ?, token_sealed = coalesce(?, token_sealed), brand = coalesce(?, brand),
       challenge = ?, challenge_url = ?, flw_ref = ?, answered_at = now()
     where charge_id = ? and state = 'submitted'`,
    [
      answer.outcome,
      answer.reason ?? null,
      answer.failureClass ?? null,
      answer.token ? box.seal(answer.token) : null,
      answer.brand ?? null,
      answer.challenge?.mode ?? null,
      answer.challenge?.mode === 'redirect' ? answer.challenge.url : null,
      answer.challenge?.flwRef ?? null,
      chargeId,
    ],
  );
}

/** The customer sent the challenge's one-time code (once: a second one is refused by the page). True when this call marked it. */
export async function markOtpSent(orm: Orm, chargeId: string): Promise<boolean> {
  const rows = await orm.em.getConnection().execute<Array<{ charge_id: string }>>(
    `update card_submissions set otp_sent_at = now() where charge_id = ? and state = 'submitted' and challenge = 'otp' and otp_sent_at is null returning charge_id`,
    [chargeId],
  );
  return rows.length > 0;
}

/**
 * The charge workflow at `expires_at`: closes the window unless the page claimed the charge first.
 * Answers the row's state: `closed` (no card was ever sent: the charge may expire) or `submitted`.
 */
export async function closeCardWindow(orm: Orm, chargeId: string): Promise<'closed' | 'submitted'> {
  const rows = await orm.em.getConnection().execute<Array<{ state: 'closed' | 'submitted' }>>(
    `with closed as (insert into card_submissions (charge_id, state) values (?, 'closed') on conflict (charge_id) do nothing returning state)
     select state from closed union all select state from card_submissions where charge_id = ?`,
    [chargeId, chargeId],
  );
  return rows[0].state;
}

type Row = {
  charge_id: string;
  state: 'submitted' | 'closed';
  brand: string | null;
  last4: string | null;
  outcome: CardOutcome | null;
  reason: string | null;
  failure_class: FailureClass | null;
  challenge: CardChallengeMode | null;
  challenge_url: string | null;
  flw_ref: string | null;
  otp_sent_at: Date | null;
  created_at: Date | string;
};

export async function findCardSubmission(orm: Orm, chargeId: string): Promise<CardSubmission | null> {
  const rows = await orm.em.getConnection().execute<Row[]>(
    `select charge_id, state, brand, last4, outcome, reason, failure_class, challenge, challenge_url, flw_ref, otp_sent_at, created_at from card_submissions where charge_id = ?`,
    [chargeId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    chargeId: r.charge_id,
    state: r.state,
    brand: r.brand,
    last4: r.last4,
    outcome: r.outcome,
    reason: r.reason,
    failureClass: r.failure_class,
    challenge: r.challenge,
    challengeUrl: r.challenge_url,
    flwRef: r.flw_ref,
    otpSent: r.otp_sent_at !== null,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

/** One batch of sealed card tokens for `secrets reseal` (as resealPartyBatch): charge id order after `afterId`; the last id seen, or null. */
export async function resealCardTokenBatch(orm: Orm, afterId: string, limit: number, reseal: (sealed: string, chargeId: string) => string | null): Promise<string | null> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<Array<{ charge_id: string; token_sealed: string }>>(
      `select charge_id, token_sealed from card_submissions where charge_id > ? and token_sealed is not null order by charge_id limit ? for update`,
      [afterId, limit],
    );
    for (const row of rows) {
      const next = reseal(row.token_sealed, row.charge_id);
      if (next !== null) await em.execute(`update card_submissions set token_sealed = ? where charge_id = ?`, [next, row.charge_id]);
    }
    return rows.length === 0 ? null : rows[rows.length - 1].charge_id;
  });
}
