import type { SimContext } from '../types';

/** One read-only query on the run's database (`?` placeholders), rows as the driver returns them. */
export function rows<T>(ctx: SimContext, sql: string, params: unknown[] = []): Promise<T[]> {
  return ctx.orm.em.fork().execute<T[]>(sql, params);
}
