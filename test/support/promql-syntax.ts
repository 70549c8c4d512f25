/**
 * PromQL syntax errors found by Prometheus's own grammar for the web UI, @prometheus-io/lezer-promql
 * (pinned exactly in devDependencies). It checks syntax only (not function arity or argument types,
 * which promtool also checks): `npm test` runs it on every rule and dashboard query, so a fresh clone
 * needs no promtool; CI runs promtool as well (test/unit/monitoring-promtool.test.ts).
 */
import { parser } from '@prometheus-io/lezer-promql';

/** Each error as `at <offset>: …<text around it>…`; empty when the expression parses. */
export function promqlSyntaxErrors(expr: string): string[] {
  const errors: string[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) errors.push(`at ${node.from}: ${JSON.stringify(expr.slice(Math.max(0, node.from - 20), node.from + 20))}`);
    },
  });
  if (expr.trim() === '') errors.push('empty expression');
  return errors;
}
