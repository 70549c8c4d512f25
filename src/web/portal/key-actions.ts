import type { Environment } from '../../domain/environment';
import type { ChangeActor } from '../../domain/operator-action';
import { isScope, type Scope } from '../../domain/scopes';
import { KeyRollRefused, listKeys, rollKey, type ListedKey, type RolledKey } from '../../persistence/merchants/api-key-store';
import { issueKey, revokeKey, type IssuedKey } from '../../persistence/merchants/merchant-store';
import type { Orm } from '../../persistence/orm';
import type { PortalSession } from '../../persistence/portal/portal-session-store';
import { ROLL_OVERLAPS } from './api-keys-page';
import { portalActor } from './kit';
import { roleRefusal } from './permission-refusal';

/**
 * Developers → API keys through the same key services as the CLI (issueKey, rollKey, revokeKey),
 * each writing its `operator_audit` row in the change's transaction, as `portal:<email>`. A key id
 * from a form is acted on only if it is one of the session's merchant's keys in the session's
 * environment; otherwise nothing changes. Each action also checks the session's role itself
 * (`manage_api_keys`: live keys need an admin or an owner; src/domain/portal-roles.ts), beside the
 * routes' gate, so no caller of these functions can skip it.
 */
export class KeyActionRefused extends Error {}

/** A key action refused by the session's role (the portal answers 403). */
export class KeyActionForbidden extends KeyActionRefused {}

/** The actor of a key change, once the session's role may change keys in its environment. */
function keysActor(session: PortalSession, requestId: string): ChangeActor {
  const refusal = roleRefusal(session, 'manage_api_keys');
  if (refusal) throw new KeyActionForbidden(refusal);
  return portalActor(session, requestId, 'Developers → API keys');
}

export async function environmentKeys(orm: Orm, merchantId: string, environment: Environment): Promise<ListedKey[]> {
  return (await listKeys(orm, merchantId)).data.filter((k) => k.environment === environment);
}

export async function createKey(orm: Orm, session: PortalSession, scopes: string[], requestId: string): Promise<IssuedKey> {
  const actor = keysActor(session, requestId);
  const chosen = [...new Set(scopes)];
  if (chosen.length === 0) throw new KeyActionRefused('Choose at least one scope.');
  if (!chosen.every(isScope)) throw new KeyActionRefused('Unknown scope.');
  return issueKey(orm, session.merchantId, session.environment, chosen as Scope[], actor);
}

async function ownKey(orm: Orm, session: PortalSession, keyId: string): Promise<ListedKey> {
  const key = (await environmentKeys(orm, session.merchantId, session.environment)).find((k) => k.id === keyId);
  if (!key) throw new KeyActionRefused('No such key in this environment.');
  return key;
}

export async function rollOwnKey(orm: Orm, session: PortalSession, keyId: string, overlap: string | null, requestId: string): Promise<RolledKey> {
  const actor = keysActor(session, requestId);
  const choice = overlap !== null && Object.hasOwn(ROLL_OVERLAPS, overlap) ? ROLL_OVERLAPS[overlap]! : null;
  if (!choice) throw new KeyActionRefused('Choose how long the old key keeps working (at most 7 days).');
  await ownKey(orm, session, keyId);
  try {
    return await rollKey(orm, keyId, choice.ms, actor);
  } catch (error) {
    if (error instanceof KeyRollRefused) throw new KeyActionRefused(`This key cannot be rolled: ${error.message}.`);
    throw error;
  }
}

export async function revokeOwnKey(orm: Orm, session: PortalSession, keyId: string, requestId: string): Promise<void> {
  const actor = keysActor(session, requestId);
  const key = await ownKey(orm, session, keyId);
  if (key.status === 'revoked' || key.status === 'expired') throw new KeyActionRefused('This key is already revoked or expired.');
  await revokeKey(orm, keyId, actor);
}
