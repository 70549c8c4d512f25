import type { PortalRoutes } from './kit';

/** The portal's webhooks page(s): being built (issue 21). */
export const webhooksRoutes: PortalRoutes = () => undefined;
