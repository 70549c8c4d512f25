import type { PortalRoutes } from './kit';

/** The portal's events page(s): being built (issue 21). */
export const eventsRoutes: PortalRoutes = () => undefined;
