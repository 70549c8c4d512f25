/**
 * Every PromQL expression of monitoring/ (the alert rules, and the Grafana dashboard's queries with
 * Grafana's variables filled in) parses with Prometheus's own grammar from npm
 * (@prometheus-io/lezer-promql, test/support/promql-syntax.ts): needs nothing beyond `npm install`.
 * promtool (test/unit/monitoring-promtool.test.ts) adds its type and arity checks where it is installed
 * (CI: .ci/run builds it).
 */
import { promqlSyntaxErrors } from '../support/promql-syntax';
import { dashboardQueries, ruleQueries, withoutGrafanaVariables } from '../support/monitoring-queries';

const errorsOf = (queries: { where: string; expr: string }[]) =>
  queries.flatMap((q) => promqlSyntaxErrors(q.expr).map((e) => `${q.where} ${e}`));

test('every expression of monitoring/prometheus/rules.yml parses', () => {
  const queries = ruleQueries();
  expect(queries.length).toBeGreaterThan(5);
  expect(errorsOf(queries)).toEqual([]);
});

test("every query of the Grafana dashboard parses (Grafana's variables filled in)", () => {
  const queries = dashboardQueries().map((q) => ({ ...q, expr: withoutGrafanaVariables(q.expr) }));
  expect(queries.length).toBeGreaterThan(5);
  expect(errorsOf(queries)).toEqual([]);
});

test.each([
  'rate(payments_charges_total[5m]',
  'ratee(payments_charges_total[5m])',
  'sum by (le) (',
  'payments_charges_total payments_refunds_total',
  'up{job="payments"',
  'rate(payments_charges_total[5mm])',
  'histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m]))) >',
  '',
])('a broken expression is caught: %j', (expr) => {
  expect(promqlSyntaxErrors(expr)).not.toEqual([]);
});

test.each([
  'sum by (environment) (rate(payments_charges_total{environment=~".*"}[5m])) > bool 0',
  'histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket[5m])))',
  'max_over_time(payments_stuck_workflows[10m:1m] offset 1h) / on (environment) group_left count(up)',
])('a valid expression passes: %j', (expr) => {
  expect(promqlSyntaxErrors(expr)).toEqual([]);
});
