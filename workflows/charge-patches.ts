import { patched } from '@temporalio/workflow';
import { BOUNDED_DB_RETRIES_PATCH } from '../src/domain/charge-attention';
import { INDETERMINATE_ATTENTION_PATCH, PARTNER_DECIDES_LIVE_CHARGE_PATCH } from '../src/domain/charge-resolution';
import { HOSTED_CHECKOUT_PATCH } from '../src/domain/hosted-checkout';
import { LIVE_PARTNER_RAIL_PATCH, PARTNER_WORD_PATCH } from '../src/domain/live-rail';
import { RAIL_TIMERS_FROM_CREATE_PATCH } from '../src/domain/sandbox-outcome';
import { SANDBOX_ADVANCE_PATCH } from './charge-timers';
import { CHARGE_WAIT_CONTINUES_PATCH } from '../src/domain/partner-wait';
import { LIVE_CARD_CHARGE_PATCH } from '../src/domain/live-card';
import { RAIL_FAILOVER_PATCH } from '../src/domain/rail-failover';
import { TRUST_ONLY_THE_DATABASE_PATCH } from '../src/domain/charge-start';

/**
 * `patched()` id (issue 32, the replay flake): a charge run decides the patches of its rail in its
 * first activation, before the `beginCharge` local activity, instead of where each branch is met.
 *
 * Why: a query that reaches the run while that local activity's result waits for the workflow makes
 * the SDK (sdk-core's query-with-pending-LA path) complete the workflow task with the activity's
 * marker and force a new task, in which the workflow then takes the result. On replay, sdk-core
 * resolves the activity from its marker in the first task already, so the code after it runs one
 * task earlier than it first did, before the patch markers it wrote in the second task are known:
 * `patched()` answers false there, and the replay fails ("Non-deprecated patch marker encountered
 * for change sandbox-advance, but there is no corresponding change command"). Markers written in the
 * first activation are read at the same point whatever the tasks did. Runs recorded before this patch
 * decide as they did (lazily).
 */
export const RAIL_PATCHES_AT_START_PATCH = 'rail-patches-at-start';

/** `patched()`, or the answer a run gave in its first activation. */
export type PatchCheck = (patchId: string) => boolean;

/** The patches a charge of each environment may meet after `beginCharge` (the ones its rail can take). */
const AFTER_BEGIN: Readonly<Record<string, readonly string[]>> = {
  sandbox: [BOUNDED_DB_RETRIES_PATCH, HOSTED_CHECKOUT_PATCH, INDETERMINATE_ATTENTION_PATCH, SANDBOX_ADVANCE_PATCH, RAIL_TIMERS_FROM_CREATE_PATCH],
  live: [BOUNDED_DB_RETRIES_PATCH, LIVE_PARTNER_RAIL_PATCH, PARTNER_WORD_PATCH, PARTNER_DECIDES_LIVE_CHARGE_PATCH, CHARGE_WAIT_CONTINUES_PATCH, LIVE_CARD_CHARGE_PATCH, RAIL_FAILOVER_PATCH],
};

/**
 * Call in the run's first activation, before any local activity. `environment` is the run's start
 * search attribute (in the history, so replay sees the same; a run whose stored charge disagrees is
 * refused before its rail). A new run records the markers of every patch its environment's rail may
 * meet, now, and answers from them later; an id not decided here falls back to `patched()`.
 */
export function railPatchesAtStart(environment: string | undefined): PatchCheck {
  const ids = environment === undefined ? undefined : AFTER_BEGIN[environment];
  if (!ids || !patched(RAIL_PATCHES_AT_START_PATCH)) return patched;
  const decided = new Map(ids.map((id) => [id, patched(id)] as const));
  return (id) => decided.get(id) ?? patched(id);
}

/**
 * `patched()` id (issue 48, the cost of a charge): a new charge run records ONE marker that stands
 * for every patch a charge run of this code takes: `trust-only-the-database`, `rail-patches-at-start`
 * and the rail patches of both environments (AFTER_BEGIN).
 *
 * Why: sdk-core writes a marker and an `UpsertWorkflowSearchAttributes` (TemporalChangeVersion) for
 * every `patched()` a new run asks, and the server updates the run's visibility record for each; a
 * sandbox charge asked seven, so 14 of its 27 history events and seven visibility writes were patch
 * bookkeeping. Runs recorded before this patch have no such marker: `patched()` answers false and they
 * decide on the old path, marker by marker, exactly as recorded. Patches added after this one are asked
 * with `patched()` where they are met.
 */
export const CHARGE_PATCHES_AS_ONE_PATCH = 'charge-patches-as-one';

/** The patches that `charge-patches-as-one` stands for (all true in a run that carries it). */
export const CHARGE_PATCHES_IN_ONE: ReadonlySet<string> = new Set([TRUST_ONLY_THE_DATABASE_PATCH, RAIL_PATCHES_AT_START_PATCH, ...AFTER_BEGIN.sandbox, ...AFTER_BEGIN.live]);

/** The check of a run that carries `charge-patches-as-one`: its patches true, any later one asked where met. */
export function patchedAsOne(id: string): boolean {
  return CHARGE_PATCHES_IN_ONE.has(id) || patched(id);
}
