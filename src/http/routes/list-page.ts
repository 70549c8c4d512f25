import { encodeListCursor } from '../../persistence/sql-values';

export { listCursor } from '../../services/list-cursor';

/** The list envelope of INTERFACE.md over rows fetched with `limit + 1`, newest first. */
export function renderList<T extends { id: string; createdAt: string }>(rows: T[], limit: number, render: (row: T) => unknown): Record<string, unknown> {
  const kept = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = kept[kept.length - 1];
  return {
    object: 'list',
    data: kept.map(render),
    has_more: hasMore,
    ...(hasMore && last ? { next_cursor: encodeListCursor({ createdAt: last.createdAt, id: last.id }) } : {}),
  };
}
