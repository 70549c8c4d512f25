import { apiKeysRoutes } from './api-keys-routes';
import { balancesRoutes } from './balances-routes';
import { eventsRoutes } from './events-routes';
import type { PortalRoutes } from './kit';
import { paymentsRoutes } from './payments-routes';
import { settingsRoutes } from './settings-routes';
import { usersRoutes } from './users-routes';
import { webhooksRoutes } from './webhooks-routes';

/** Where a signed-in user lands (sign-in, `/`, the environment switch). */
export const HOME_PATH = '/payments';

/** The portal's pages in the header's order: each module owns its paths (GET pages and their POST actions). */
export const PORTAL_PAGES: PortalRoutes[] = [paymentsRoutes, balancesRoutes, eventsRoutes, webhooksRoutes, apiKeysRoutes, usersRoutes, settingsRoutes];

