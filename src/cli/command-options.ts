/**
 * The options each admin command takes (issue 30): the CLI refuses any other option given to a
 * command, instead of ignoring it (`audit list --merchant …` used to list every merchant's rows).
 * Every command of src/cli.ts and src/cli/reconcile.ts has a row (test/unit/cli-command-options.test.ts
 * checks it); `[]` is a command that takes no option.
 */

/** What an operator action takes besides its id: who and why, or a bulk selection (src/cli-operator-actions.ts). */
const OPERATOR_ACTION = ['reason', 'operator', 'query', 'merchant', 'yes'] as const;
/** A key change's audit: who (default `cli:<login>`) and why (default: the command). */
const KEY_CHANGE = ['reason', 'operator'] as const;

export const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  'merchants create': ['name', 'email', 'password-stdin', ...KEY_CHANGE],
  'merchants verify': [],
  'merchants set': ['payout-review-threshold', 'settlement-bank', 'settlement-account', 'live-max-amount', 'live-daily-limit', 'notification-email'],
  'users create': ['merchant', 'email', 'password-stdin'],
  'users list': ['merchant'],
  // A portal user's access (src/persistence/portal-user-access.ts): audited like a key change.
  'users disable': [...KEY_CHANGE],
  'users enable': [...KEY_CHANGE],
  'users revoke-sessions': [...KEY_CHANGE],
  'keys create': ['merchant', 'env', 'scopes', ...KEY_CHANGE],
  'keys roll': ['expires-in', ...KEY_CHANGE],
  'keys revoke': [...KEY_CHANGE],
  'keys list': ['merchant'],
  'charges reverse': OPERATOR_ACTION,
  'charges resolve': [...OPERATOR_ACTION, 'as', 'failure-class', 'evidence'],
  'charges retry': OPERATOR_ACTION,
  'payouts approve': OPERATOR_ACTION,
  'payouts reject': OPERATOR_ACTION,
  'payouts reverse': OPERATOR_ACTION,
  'settlements retry': OPERATOR_ACTION,
  'payments restart': OPERATOR_ACTION,
  'payments settle-late': [...OPERATOR_ACTION, 'action', 'evidence'],
  'payments review-close': OPERATOR_ACTION,
  'payments stuck': ['env', 'query'],
  'settlements run': ['merchant', 'env', 'outcome'],
  'settlements skipped': ['merchant', 'env', 'limit'],
  'secrets reseal': [],
  'ledger check': [],
  'audit list': ['payment', 'merchant', 'since', 'action', 'batch', 'limit'],
  'reconcile run': ['date', 'product'],
  'reconcile import': ['product', 'date'],
  'reconcile breaks': ['since', 'kind', 'status', 'limit'],
  'reconcile resolve': ['reason', 'operator'],
  'reconcile report': ['date'],
};

/**
 * The first option of `given` (names without `--`) that `command` does not take, with the message
 * the CLI prints; null when every one is taken, or when the command is unknown (the CLI then says
 * so itself).
 */
export function refusedOption(command: string, given: readonly string[]): string | null {
  const allowed = COMMAND_OPTIONS[command];
  if (allowed === undefined) return null;
  const refused = given.find((option) => !allowed.includes(option));
  if (refused === undefined) return null;
  const takes = allowed.length === 0 ? 'it takes no options' : `it takes ${allowed.map((o) => `--${o}`).join(', ')}`;
  return `--${refused} is not an option of "${command}" (${takes})`;
}
