import { Migration } from '@mikro-orm/migrations';

/**
 * Portal roles (issue 47, finding 1; src/domain/portal-roles.ts):
 *
 * - `portal_users.role`: owner, admin, developer or viewer. Every user that exists when this runs
 *   becomes `owner`, so nothing a user could do before is taken away silently (an owner or an
 *   operator narrows roles afterwards); new rows must name their role (no default).
 * - `portal_users.disabled_by`: who disabled a disabled user, `operator` (the `users disable` CLI)
 *   or `portal` (a colleague on the Users page); a user disabled by an operator is enabled only by
 *   an operator. Users disabled before this migration take the operator of their latest
 *   `portal_user.disable` audit row (`portal:<email>` → portal), else `operator` (the safer side).
 *
 * Frozen once landed.
 */
export class Migration20261220000001_portal_roles extends Migration {
  override name = 'Migration20261220000001_portal_roles';

  override up(): void {
    this.addSql(`alter table portal_users add column role text not null default 'owner' check (role in ('owner','admin','developer','viewer'))`);
    this.addSql(`alter table portal_users alter column role drop default`);
    this.addSql(`alter table portal_users add column disabled_by text null check (disabled_by in ('operator','portal'))`);
    this.addSql(`update portal_users u set disabled_by = case when (
        select a.operator from operator_audit a where a.payment_id = u.id and a.action = 'portal_user.disable' order by a.created_at desc limit 1
      ) like 'portal:%' then 'portal' else 'operator' end
      where u.disabled_at is not null`);
    this.addSql(`alter table portal_users add constraint portal_users_disabled_by check ((disabled_at is null) = (disabled_by is null))`);
  }
}
