import type { PortalRoutes } from './kit';

/** The portal's settings page(s): being built (issue 21). */
export const settingsRoutes: PortalRoutes = () => undefined;
