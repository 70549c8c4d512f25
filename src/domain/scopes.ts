/** Scopes of INTERFACE.md; a key carries a subset, each route needs one. */
export const ALL_SCOPES = [
  'charges:read',
  'charges:write',
  'payouts:read',
  'payouts:write',
  'refunds:read',
  'refunds:write',
  'balances:read',
  'events:read',
  'webhooks:read',
  'webhooks:write',
  'disputes:read',
  'disputes:write',
  'settlements:read',
  'reference:read',
] as const;

export type Scope = (typeof ALL_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
