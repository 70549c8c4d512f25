import { FAILURE_CLASSES } from '../../domain/failure-classes';
import { CHARGE_LIFETIME_MS, COMPLETION_DELAY_MS, PENDING_TIMEOUT_MS } from '../../domain/sandbox-outcome';

const minutes = (ms: number) => `${ms / 60_000} minutes`;

/**
 * The sandbox outcomes table (Markdown), from the simulator's own constants and the failure classes
 * it accepts (src/domain/sandbox-outcome.ts, failure-classes.ts), so the page cannot drift from them.
 */
export function sandboxOutcomesTable(): string {
  const rows: Array<[string, string]> = [
    ['`succeed` (or none)', `Succeeds about ${COMPLETION_DELAY_MS / 1000} s after the create.`],
    ['`pending`', `Stays in flight, then fails with \`failure_class: timeout\` ${minutes(PENDING_TIMEOUT_MS)} after the create.`],
    ['`indeterminate`', 'The create answers `504 partner_timeout` with the charge in `transaction_id`; it stays unresolved and expires at `expires_at` with `failure_class: timeout`.'],
    ...FAILURE_CLASSES.map((fc): [string, string] => [`\`${fc}\``, `The create answers the charge in flight; it fails at once with \`failure_class: ${fc}\`.`]),
    ['`held_for_review` (payouts)', 'The payout is created `held_for_review`.'],
    ['`reverse` (payouts)', 'Succeeds, then is reversed about 3 s later.'],
  ];
  return [
    '| `metadata.sandbox_outcome` | What happens |',
    '| --- | --- |',
    ...rows.map(([outcome, what]) => `| ${outcome} | ${what} |`),
    '',
    `A charge expires ${minutes(CHARGE_LIFETIME_MS)} after its creation, unless the create's \`expires_at\` sets a later instant (up to 24 hours away). Any other value succeeds.`,
  ].join('\n');
}
