import type { PortalRoutes } from './kit';

/** The portal's balances page(s): being built (issue 21). */
export const balancesRoutes: PortalRoutes = () => undefined;
