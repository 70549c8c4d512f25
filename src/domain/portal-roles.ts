import type { Environment } from './environment';

/**
 * The merchant portal's roles (issue 47, finding 1; docs/security.md "Portal roles"): the one place
 * that says what each role may do. Every check reads it: the portal's POST gate (src/web/portal/kit.ts
 * `posted(ctx, permission)`), the pages that hide what a role cannot use, the key actions, and the
 * user changes of the Users page and the `users` CLI (src/persistence/portal/portal-user-access.ts,
 * portal-user-role.ts). Pure: no I/O.
 *
 * - owner: everything, and the only role that changes an owner or grants owner.
 * - admin: everything but owners: changes users (role, disable, enable, end sessions), API keys and
 *   webhooks in both environments.
 * - developer: webhooks in both environments, sandbox API keys; the live API keys page is closed.
 * - viewer: read only; like everyone, it still signs out, switches sandbox/live and acts on its own
 *   session and password (`self_service`).
 */
export const PORTAL_ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type PortalRole = (typeof PORTAL_ROLES)[number];

export const isPortalRole = (text: unknown): text is PortalRole => typeof text === 'string' && (PORTAL_ROLES as readonly string[]).includes(text);

/** What a POST (or a page) needs. `view` and `self_service` are every role's. */
export type PortalPermission =
  /** Read the pages, export what they show (the balances CSV). */
  | 'view'
  /** Forms that act on one's own session or password only (sign-out, the switch, one's sessions, one's password). */
  | 'self_service'
  /** Change other users: role, disable, enable, end sessions (the target's own rules: userChangeRefusal). */
  | 'manage_users'
  /** Register, rotate, enable/disable, delete endpoints; replay deliveries (both environments). */
  | 'manage_webhooks'
  /** Open the API keys page of the environment (live: admin or owner). */
  | 'view_api_keys'
  /** Create, roll, revoke keys of the environment (sandbox: developer and up; live: admin or owner). */
  | 'manage_api_keys'
  /** Settings that move money (none is changed from the portal yet: reserved for owner and admin). */
  | 'manage_settings';

const RANK: Record<PortalRole, number> = { owner: 3, admin: 2, developer: 1, viewer: 0 };
const atLeast = (role: PortalRole, least: PortalRole) => RANK[role] >= RANK[least];

/** Whether `role` may do what `permission` names in `environment` (the session's). */
export function can(role: PortalRole, permission: PortalPermission, environment: Environment): boolean {
  switch (permission) {
    case 'view':
    case 'self_service':
      return true;
    case 'manage_users':
    case 'manage_settings':
      return atLeast(role, 'admin');
    case 'manage_webhooks':
      return atLeast(role, 'developer');
    case 'view_api_keys':
      return environment === 'sandbox' || atLeast(role, 'admin');
    case 'manage_api_keys':
      return atLeast(role, environment === 'sandbox' ? 'developer' : 'admin');
  }
}

const WHAT: Record<PortalPermission, string> = {
  view: 'view this page',
  self_service: 'do this',
  manage_users: 'change users',
  manage_webhooks: 'change webhooks',
  view_api_keys: 'open the API keys page here',
  manage_api_keys: 'create, roll or revoke API keys here',
  manage_settings: 'change settings',
};

/** The refusal's sentence, for the 403 page. */
export function permissionRefusal(role: PortalRole, permission: PortalPermission, environment: Environment): string {
  const needs = permission === 'manage_webhooks' || (permission === 'manage_api_keys' && environment === 'sandbox') ? 'a developer, an admin or an owner' : 'an admin or an owner';
  return `Your role (${role}) cannot ${WHAT[permission]}${permission.endsWith('api_keys') ? ` in ${environment}` : ''}: only ${needs} can. Nothing was changed. Ask an owner or an admin of your team.`;
}

/** Who disabled a user: an operator (`users disable`), or a colleague on the Users page. */
export type DisabledBy = 'operator' | 'portal';

/** A change of one user by another (the Users page) or by an operator (the `users` CLI). */
export type UserChange = { kind: 'set_role'; role: PortalRole } | { kind: 'disable' } | { kind: 'enable' } | { kind: 'revoke_sessions' };

export type UserChanger = { kind: 'operator' } | { kind: 'portal'; userId: string; role: PortalRole };

export interface ChangedUser {
  id: string;
  role: PortalRole;
  status: 'active' | 'disabled';
  disabledBy: DisabledBy | null;
}

/** A refusal of a user change: `forbidden` when the role or an operator's disable forbids it (403), else a request that makes no sense (oneself: 400). */
export interface UserChangeRefusal {
  forbidden: boolean;
  message: string;
}

/**
 * Why `by` may not make `change` to `target`, or null when it may. `activeOwners` counts the
 * merchant's active owners now (the target included). The rules:
 * - in the portal only an owner or an admin changes users, never themself (sign-out and one's own
 *   sessions page are for that), an admin never an owner nor makes one;
 * - a user disabled by an operator is enabled only by an operator;
 * - the last active owner is never demoted nor disabled from the portal; an operator (the CLI) may
 *   disable it (a stolen laptop) but not demote it (promote another first).
 * State refusals (already disabled, not disabled, the same role) are the caller's.
 */
export function userChangeRefusal(by: UserChanger, target: ChangedUser, change: UserChange, activeOwners: number): UserChangeRefusal | null {
  const refuse = (message: string, forbidden = true): UserChangeRefusal => ({ forbidden, message });
  const lastOwner = target.role === 'owner' && target.status === 'active' && activeOwners <= 1;
  if (by.kind === 'operator') {
    if (change.kind === 'set_role' && change.role !== 'owner' && lastOwner) return refuse(`portal user ${target.id} is the merchant's last active owner: make another user owner first`);
    return null;
  }
  if (!can(by.role, 'manage_users', 'sandbox')) return refuse(permissionRefusal(by.role, 'manage_users', 'sandbox'));
  if (target.id === by.userId) {
    return refuse(change.kind === 'set_role' ? 'You cannot change your own role: ask another owner.' : 'You cannot disable yourself or end your own sessions here: sign out instead.', false);
  }
  if (by.role !== 'owner' && target.role === 'owner') return refuse('Only an owner can change an owner. Nothing was changed.');
  if (change.kind === 'set_role' && change.role === 'owner' && by.role !== 'owner') return refuse('Only an owner can make another user an owner. Nothing was changed.');
  if (change.kind === 'enable' && target.disabledBy === 'operator') return refuse('This user was disabled by an operator: only an operator can enable it. Ask support. Nothing was changed.');
  if (lastOwner && ((change.kind === 'set_role' && change.role !== 'owner') || change.kind === 'disable')) return refuse("This user is the merchant's last active owner: make another user owner first. Nothing was changed.");
  return null;
}
