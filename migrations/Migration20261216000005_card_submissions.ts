import { Migration } from '@mikro-orm/migrations';

/**
 * `card_submissions` (issue 45, live card): the one moment a live card charge's card went to the
 * aggregator, or the moment its window closed without one. The hosted checkout page is the only
 * thing that sees the card number: it claims the charge here (state `submitted`) and chooses the
 * charge's partner reference (`rail_references`) in the same transaction, then sends the card; the
 * charge workflow, at `expires_at` without a card, closes the window (state `closed`). One row per
 * charge (the primary key), so exactly one of the two wins: a card is never sent after the charge
 * expired, and a charge whose card may have reached the aggregator is never expired without its
 * word (the status gate then holds it: it has a partner reference).
 *
 * What is kept of the card: its brand, its last four digits and the aggregator's token (sealed, as
 * the counterparties are). Never the number, never the security code (docs/security.md, "Cards").
 * The aggregator's answer to the page: `outcome` (`accepted`, `duplicate`, `refused` with `reason`,
 * or `no_answer`: it may have reached the aggregator), the challenge the customer must pass (`otp`
 * with the aggregator's `flw_ref`, or `redirect` with its url), and whether the customer sent the
 * one-time code.
 *
 * Frozen once landed.
 */
export class Migration20261216000005_card_submissions extends Migration {
  override name = 'Migration20261216000005_card_submissions';

  override up(): void {
    this.addSql(`create table if not exists card_submissions (
      charge_id text primary key references charges (id),
      state text not null check (state in ('submitted', 'closed')),
      brand text null,
      last4 text null check (last4 ~ '^[0-9]{4}$'),
      token_sealed text null,
      outcome text null check (outcome in ('accepted', 'duplicate', 'refused', 'no_answer')),
      reason text null,
      failure_class text null,
      challenge text null check (challenge in ('otp', 'redirect')),
      challenge_url text null,
      flw_ref text null,
      otp_sent_at timestamptz null,
      created_at timestamptz not null default now(),
      answered_at timestamptz null,
      check ((state = 'closed') = (last4 is null)))`);
  }
}
