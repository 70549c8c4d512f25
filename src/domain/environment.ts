/** Sandbox and live are kept strictly apart; every row, figure and event carries one of these. */
export const ENVIRONMENTS = ['sandbox', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const KEY_PREFIX: Record<Environment, string> = {
  sandbox: 'svc_test_',
  live: 'svc_live_',
};
