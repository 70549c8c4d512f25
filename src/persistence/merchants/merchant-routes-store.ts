import type { Orm } from '../orm';

/** A merchant's own routes as stored (`merchants set --routes`, issue 46; RAIL_ROUTES' text form), or null. */
export async function readMerchantRailRoutes(orm: Orm, merchantId: string): Promise<string | null> {
  const rows = await orm.em.fork().execute<Array<{ rail_routes: string | null }>>(`select rail_routes from merchants where id = ?`, [merchantId]);
  return rows[0]?.rail_routes ?? null;
}
