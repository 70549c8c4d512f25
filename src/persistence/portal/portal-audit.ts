import type { Environment } from '../../domain/environment';
import type { ChangeAction } from '../../domain/operator-action';
import { recordChange } from '../operators/change-audit';
import type { Orm } from '../orm';

/** A portal user's access, as its audit row records it (the subject is the user `usr_…`). */
export interface PortalAccess {
  action: Extract<ChangeAction, `portal.${string}`>;
  userId: string;
  email: string;
  merchantId: string;
  environment: Environment;
  requestId: string;
  /** Non-secret state after the action (the environment chosen, a lock-out's end). */
  after?: Record<string, unknown>;
}

/**
 * Writes the audit row of a sign-in, a failed sign-in of a known user, a sign-out or an environment
 * switch (operator `portal:<email>`), beside the key and webhook changes the portal makes through
 * the services. Unknown emails have no merchant and are not recorded (the log shows them).
 */
export async function recordPortalAccess(orm: Orm, access: PortalAccess): Promise<void> {
  await recordChange(
    orm.em.fork(),
    { operator: `portal:${access.email}`, reason: `portal: ${access.action.slice('portal.'.length).replace(/_/g, ' ')}`, requestId: access.requestId },
    { action: access.action, subjectId: access.userId, merchantId: access.merchantId, environment: access.environment, before: null, after: access.after ?? null },
  );
}
