import type { ChangeActor } from '../../domain/operator-action';
import { PORTAL_ROLES, type DisabledBy, type PortalRole } from '../../domain/portal-roles';
import { recordChange } from '../operators/change-audit';
import type { Orm } from '../orm';
import { newId } from '../../support/new-id';
import { attemptKeySql, normalizeEmail } from './sign-in-attempts';

/**
 * Portal users (`portal_users`, migration 20261128000006): who may sign in to a merchant's portal.
 * Emails are stored lower-cased; only the argon2id hash of a password is stored.
 */

export interface PortalUser {
  id: string;
  merchantId: string;
  email: string;
  passwordHash: string;
  /** What the user may do in the portal (src/domain/portal-roles.ts). */
  role: PortalRole;
  /** Disabled by an operator or a colleague: no session, no sign-in. */
  disabledAt: Date | null;
  /** Who disabled it: only an operator enables a user an operator disabled. */
  disabledBy: DisabledBy | null;
  createdAt: Date;
  lastSignInAt: Date | null;
}

export class PortalUserRefused extends Error {}

interface Row {
  id: string;
  merchant_id: string;
  email: string;
  password_hash: string;
  role: PortalRole;
  disabled_at: Date | string | null;
  disabled_by: DisabledBy | null;
  created_at: Date | string;
  last_sign_in_at: Date | string | null;
}

const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

function userOf(row: Row): PortalUser {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    passwordHash: row.password_hash,
    role: row.role,
    disabledAt: date(row.disabled_at),
    disabledBy: row.disabled_by,
    createdAt: new Date(row.created_at),
    lastSignInAt: date(row.last_sign_in_at),
  };
}

export { normalizeEmail };

/**
 * `users create`: a user of an existing merchant; a taken email or an unknown merchant is refused,
 * nothing written. The user and its operator_audit row (`portal_user.create`: who, why, the email and
 * role, never the password) commit together. Without `role`, the merchant's first user is its
 * owner; once it has users, the role must be named (refused otherwise, nothing written).
 */
export async function createPortalUser(
  orm: Orm,
  merchantId: string,
  email: string,
  passwordHash: string,
  actor: ChangeActor = { operator: 'system', reason: 'portal user created', requestId: newId('request') },
  role?: PortalRole,
): Promise<{ id: string; merchant_id: string; email: string; role: PortalRole; created_at: string }> {
  return orm.em.fork().transactional(async (em) => {
    // The merchant's row is locked so two first users cannot both default to owner unseen.
    const merchants = await em.execute<{ id: string }[]>(`select id from merchants where id = ? for update`, [merchantId]);
    if (!merchants[0]) throw new PortalUserRefused(`merchant ${merchantId} does not exist`);
    const taken = await em.execute<{ id: string }[]>(`select id from portal_users where email = ?`, [normalizeEmail(email)]);
    if (taken[0]) throw new PortalUserRefused(`a portal user with email ${normalizeEmail(email)} already exists`);
    if (role === undefined) {
      const existing = await em.execute<{ n: number }[]>(`select count(*)::int as n from portal_users where merchant_id = ?`, [merchantId]);
      if (existing[0]!.n > 0) throw new PortalUserRefused(`merchant ${merchantId} already has portal users: name the new user's role (${PORTAL_ROLES.join(', ')})`);
    }
    const rows = await em.execute<Row[]>(
      `insert into portal_users (id, merchant_id, email, password_hash, role) values (?, ?, ?, ?, ?) on conflict (email) do nothing returning *`,
      [newId('portalUser'), merchantId, normalizeEmail(email), passwordHash, role ?? 'owner'],
    );
    if (!rows[0]) throw new PortalUserRefused(`a portal user with email ${normalizeEmail(email)} already exists`);
    const user = userOf(rows[0]);
    await recordChange(em, actor, { action: 'portal_user.create', subjectId: user.id, merchantId, environment: null, before: null, after: { email: user.email, role: user.role, status: 'active' } });
    return { id: user.id, merchant_id: user.merchantId, email: user.email, role: user.role, created_at: user.createdAt.toISOString() };
  });
}

/** One user as `users list` and the portal's Users page show it: never a hash. */
export interface PortalUserView {
  id: string;
  email: string;
  role: PortalRole;
  status: 'active' | 'disabled';
  /** Who disabled it (operator: only an operator enables it again), null while active. */
  disabled_by: DisabledBy | null;
  created_at: string;
  last_sign_in_at: string | null;
  /** The sign-in lock-out's end while one is in force (src/persistence/portal/sign-in-attempts.ts). */
  locked_until: string | null;
}

/** `users list --merchant ID`, the portal's Users page: a merchant's users, oldest first. */
export async function listPortalUsers(orm: Orm, merchantId: string): Promise<{ object: 'list'; data: PortalUserView[] }> {
  const rows = await orm.em.getConnection().execute<(Row & { lock: Date | string | null })[]>(
    `select u.*, case when a.locked_until > now() then a.locked_until end as lock
       from portal_users u left join portal_sign_in_attempts a on a.key = ${attemptKeySql('u.email')}
      where u.merchant_id = ? order by u.created_at, u.id`,
    [merchantId],
  );
  return {
    object: 'list',
    data: rows.map((row) => {
      const u = userOf(row);
      return { id: u.id, email: u.email, role: u.role, status: u.disabledAt ? 'disabled' : 'active', disabled_by: u.disabledBy, created_at: u.createdAt.toISOString(), last_sign_in_at: u.lastSignInAt?.toISOString() ?? null, locked_until: date(row.lock)?.toISOString() ?? null };
    }),
  };
}

export async function findPortalUserByEmail(orm: Orm, email: string): Promise<PortalUser | null> {
  const rows = await orm.em.getConnection().execute<Row[]>(`select * from portal_users where email = ?`, [normalizeEmail(email)]);
  return rows[0] ? userOf(rows[0]) : null;
}

export async function recordSignIn(orm: Orm, userId: string): Promise<void> {
  await orm.em.getConnection().execute(`update portal_users set last_sign_in_at = now() where id = ?`, [userId]);
}
