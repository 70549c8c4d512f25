import { can, PORTAL_ROLES, userChangeRefusal, type ChangedUser, type PortalPermission, type PortalRole, type UserChange } from '../../src/domain/portal-roles';

/** src/domain/portal-roles.ts: the one table every portal check reads (issue 47, finding 1). */

test('can: each role × permission × environment', () => {
  const permissions: PortalPermission[] = ['view', 'self_service', 'manage_users', 'manage_webhooks', 'view_api_keys', 'manage_api_keys', 'manage_settings'];
  const table = Object.fromEntries(
    PORTAL_ROLES.map((role) => [role, Object.fromEntries((['sandbox', 'live'] as const).map((env) => [env, permissions.filter((p) => can(role, p, env))]))]),
  );
  const everyone = ['view', 'self_service'];
  expect(table).toEqual({
    owner: { sandbox: permissions, live: permissions },
    admin: { sandbox: permissions, live: permissions },
    developer: { sandbox: [...everyone, 'manage_webhooks', 'view_api_keys', 'manage_api_keys'], live: [...everyone, 'manage_webhooks'] },
    viewer: { sandbox: [...everyone, 'view_api_keys'], live: everyone },
  });
});

const user = (id: string, role: PortalRole, extra: Partial<ChangedUser> = {}): ChangedUser => ({ id, role, status: 'active', disabledBy: null, ...extra });
const refusal = (by: { role: PortalRole; id?: string } | 'operator', target: ChangedUser, change: UserChange, owners = 2) =>
  userChangeRefusal(by === 'operator' ? { kind: 'operator' } : { kind: 'portal', userId: by.id ?? 'usr_me', role: by.role }, target, change, owners)?.message ?? null;

test('userChangeRefusal: who may change whom', () => {
  const disable: UserChange = { kind: 'disable' };
  // Only owners and admins; never oneself.
  expect(refusal({ role: 'developer' }, user('usr_x', 'viewer'), disable)).toMatch(/cannot change users/);
  expect(refusal({ role: 'viewer' }, user('usr_x', 'viewer'), { kind: 'revoke_sessions' })).toMatch(/cannot change users/);
  expect(refusal({ role: 'owner' }, user('usr_me', 'owner'), { kind: 'set_role', role: 'admin' })).toMatch(/your own role/);
  expect(userChangeRefusal({ kind: 'portal', userId: 'usr_me', role: 'owner' }, user('usr_me', 'owner'), disable, 2)?.forbidden).toBe(false);
  // An admin: not an owner, not making one; anyone else.
  expect(refusal({ role: 'admin' }, user('usr_x', 'owner'), disable)).toMatch(/Only an owner can change an owner/);
  expect(refusal({ role: 'admin' }, user('usr_x', 'viewer'), { kind: 'set_role', role: 'owner' })).toMatch(/Only an owner can make/);
  expect(refusal({ role: 'admin' }, user('usr_x', 'viewer'), { kind: 'set_role', role: 'admin' })).toBeNull();
  expect(refusal({ role: 'owner' }, user('usr_x', 'viewer'), { kind: 'set_role', role: 'owner' })).toBeNull();
  // Disabled by an operator: only an operator enables it.
  const byOperator = user('usr_x', 'viewer', { status: 'disabled', disabledBy: 'operator' });
  expect(refusal({ role: 'owner' }, byOperator, { kind: 'enable' })).toMatch(/only an operator can enable it/);
  expect(refusal({ role: 'owner' }, { ...byOperator, disabledBy: 'portal' }, { kind: 'enable' })).toBeNull();
  expect(refusal('operator', byOperator, { kind: 'enable' })).toBeNull();
  // The last active owner: not demoted nor disabled from the portal; an operator disables it but does not demote it.
  const last = user('usr_x', 'owner');
  expect(refusal({ role: 'owner' }, last, disable, 1)).toMatch(/last active owner/);
  expect(refusal({ role: 'owner' }, last, { kind: 'set_role', role: 'admin' }, 1)).toMatch(/last active owner/);
  expect(refusal({ role: 'owner' }, last, disable, 2)).toBeNull();
  expect(refusal('operator', last, { kind: 'set_role', role: 'viewer' }, 1)).toMatch(/last active owner/);
  expect(refusal('operator', last, disable, 1)).toBeNull();
  expect(refusal('operator', user('usr_x', 'owner', { status: 'disabled', disabledBy: 'operator' }), { kind: 'set_role', role: 'viewer' }, 1)).toBeNull();
});
