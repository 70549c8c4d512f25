/** A node of EXPLAIN (ANALYZE, FORMAT JSON)'s plan, as far as the scan checks need it. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

export interface PlanScan {
  nodeType: string;
  index: string | undefined;
  /** Rows the scan returned or filtered out, over all its loops. */
  rowsRead: number;
}

/** Every scan of `table` in the plan (its sub-plans and CTEs included; the write itself, ModifyTable, is not a scan). */
export function planScans(plan: PlanNode, table: string): PlanScan[] {
  const found: PlanScan[] = [];
  const walk = (node: PlanNode) => {
    if (node['Relation Name'] === table && node['Node Type'] !== 'ModifyTable') {
      const perLoop = (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
      found.push({ nodeType: node['Node Type'], index: node['Index Name'], rowsRead: perLoop * (node['Actual Loops'] ?? 1) });
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan);
  return found;
}
