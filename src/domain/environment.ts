/** Sandbox and live are kept strictly apart; every row, figure and event carries one of these. */
export const ENVIRONMENTS = ['sandbox', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const KEY_PREFIX: Record<Environment, string> = {
  sandbox: 'svc_test_',
  live: 'svc_live_',
};

/** The environment a secret key belongs to, from its prefix; undefined when it has neither prefix. */
export function environmentOfKey(secret: string): Environment | undefined {
  if (secret.startsWith(KEY_PREFIX.sandbox)) return 'sandbox';
  if (secret.startsWith(KEY_PREFIX.live)) return 'live';
  return undefined;
}
