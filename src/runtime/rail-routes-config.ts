import { defaultRailRoutes, parseRailRoutes, routesProblem, type PartnerName, type RailRoutes } from '../domain/rail-routes';
import { StartupError } from '../support/startup-error';

/**
 * RAIL_ROUTES of this start (issue 45; src/domain/rail-routes.ts), checked against the partners it
 * has: a route it cannot read, or one to a partner whose settings are not set, stops the start with
 * one line naming it. Unset: the default routes of those partners.
 */
/** `cards`: the aggregator can take cards (AGGREGATOR_ENCRYPTION_KEY set). */
export function loadRailRoutes(env: NodeJS.ProcessEnv, available: Readonly<Record<PartnerName, boolean>>, cards = false): RailRoutes {
  const raw = env.RAIL_ROUTES?.trim();
  if (!raw) return defaultRailRoutes(available, cards);
  let routes: RailRoutes;
  try {
    routes = parseRailRoutes(raw);
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  const problem = routesProblem(routes, available, cards);
  if (problem) throw new StartupError(problem);
  return routes;
}
