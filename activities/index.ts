import type { Orm } from '../src/persistence/orm';
import { createChargeActivities } from './charges';

export interface ActivityDeps {
  orm: Orm;
}

/** Every activity the payments worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return { ...createChargeActivities(deps) };
}
