import type { PortalRoutes } from './kit';

/** The portal's payments page(s): being built (issue 21). */
export const paymentsRoutes: PortalRoutes = () => undefined;
