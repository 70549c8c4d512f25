/**
 * The shape of monitoring/ (issue 18): the alert rules parse, each alert has a severity, a summary,
 * a description and a runbook link to a section of docs/operations.md that names it; the Grafana
 * dashboard parses, and each panel has a Prometheus datasource and queries, laid out without overlap.
 * Whether the metric names exist: test/integration/monitoring-metrics.test.ts; PromQL syntax:
 * test/unit/monitoring-promql.test.ts (npm's PromQL parser, always) and test/unit/monitoring-promtool.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { allPanels, dashboardQueries, metricNames, readDashboard, readRules, ROOT, ruleQueries, withoutGrafanaVariables } from '../support/monitoring-queries';

const operations = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const anchors = new Set(
  [...operations.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) =>
    m[1]
      .trim()
      .toLowerCase()
      .replace(/[^\w\- ]/g, '')
      .replace(/ /g, '-'),
  ),
);

describe('monitoring/prometheus/rules.yml', () => {
  const rules = readRules();
  const alerts = rules.groups.flatMap((g) => g.rules);

  test('parses into groups of alerts with unique names', () => {
    expect(rules.groups.length).toBeGreaterThan(0);
    for (const group of rules.groups) expect(group.rules.length).toBeGreaterThan(0);
    const names = alerts.map((r) => r.alert);
    expect(names.every((n) => typeof n === 'string' && /^[A-Z][A-Za-z0-9]+$/.test(n))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });

  test.each(alerts.map((r) => [r.alert, r] as const))('%s has an expression, a severity, a summary, a description and a runbook section that explains it', (name, rule) => {
    expect(rule.expr.trim().length).toBeGreaterThan(0);
    // info: a reminder, not trouble (PartnerDrained, issue 46).
    expect(['critical', 'warning', 'info']).toContain(rule.labels?.severity);
    expect(rule.annotations?.summary).toBeTruthy();
    expect(rule.annotations?.description).toBeTruthy();
    const runbook = /^docs\/operations\.md#([\w-]+)$/.exec(rule.annotations?.runbook ?? '');
    expect({ name, runbook: rule.annotations?.runbook, valid: runbook !== null }).toEqual({ name, runbook: rule.annotations?.runbook, valid: true });
    expect({ name, anchor: runbook![1], exists: anchors.has(runbook![1]) }).toEqual({ name, anchor: runbook![1], exists: true });
    expect({ name, documented: operations.includes(`\`${name}\``) }).toEqual({ name, documented: true });
    expect(metricNames(rule.expr).length).toBeGreaterThan(0);
  });
});

describe('monitoring/grafana/payments-dashboard.json', () => {
  const dashboard = readDashboard() as ReturnType<typeof readDashboard> & { uid?: string; title?: string };
  const panels = allPanels(dashboard.panels);
  const queryPanels = panels.filter((p) => p.type !== 'row');

  test('parses, with a title, a uid and the datasource and environment variables', () => {
    expect(dashboard.title).toBeTruthy();
    expect(dashboard.uid).toMatch(/^[\w-]{1,40}$/);
    const variables = (dashboard.templating?.list ?? []).map((v) => v.name);
    expect(variables).toEqual(expect.arrayContaining(['datasource', 'environment']));
    expect(queryPanels.length).toBeGreaterThan(10);
  });

  test.each(queryPanels.map((p) => [p.title, p] as const))('panel "%s" has a Prometheus datasource and queries', (_title, panel) => {
    expect(panel.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
    expect(panel.targets?.length).toBeGreaterThan(0);
    const refIds = panel.targets!.map((t) => t.refId);
    expect(new Set(refIds).size).toBe(refIds.length);
    for (const target of panel.targets!) {
      expect(typeof target.expr === 'string' && target.expr.trim().length > 0).toBe(true);
      expect(metricNames(withoutGrafanaVariables(target.expr!)).length).toBeGreaterThan(0);
    }
  });

  test('rows hold no queries, ids are unique and no two panels overlap', () => {
    for (const row of panels.filter((p) => p.type === 'row')) expect(row.targets ?? []).toEqual([]);
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const boxes = panels.map((p) => ({ title: p.title, ...(p as { gridPos: { x: number; y: number; w: number; h: number } }).gridPos }));
    for (const [i, a] of boxes.entries()) {
      expect(a.x + a.w).toBeLessThanOrEqual(24);
      for (const b of boxes.slice(i + 1)) {
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        expect({ a: a.title, b: b.title, overlap }).toEqual({ a: a.title, b: b.title, overlap: false });
      }
    }
  });
});

describe('metricNames (the PromQL tokenizer of the metric-name checks)', () => {
  test.each([
    ['histogram_quantile(0.99, sum by (task_queue, le) (rate(foo_bucket{a="x{y}", b=~"z"}[5m]))) > 200', ['foo_bucket']],
    ['sum by (env) (rate(a_total{s="503"}[5m]) or rate(b_total[5m])) / sum without (x) (c) > 0.05', ['a_total', 'b_total', 'c']],
    ['max by (relay) (lag) > 120 unless on (relay) group_left (x) other offset 5m', ['lag', 'other']],
    ['absent(up_metric) and bool 1e+3 < inf', ['up_metric']],
    ['rate(x[$__rate_interval]) * on () group_right y{e=~"$environment"}', ['x', 'y']],
    ['max_over_time(z[1h:5m]) @ start()', ['z']],
  ])('%s', (expr, names) => {
    expect(metricNames(withoutGrafanaVariables(expr)).sort()).toEqual([...names].sort());
  });

  test('every query of both files yields names', () => {
    for (const { where, expr } of [...ruleQueries(), ...dashboardQueries()]) {
      expect({ where, names: metricNames(withoutGrafanaVariables(expr)).length > 0 }).toEqual({ where, names: true });
    }
  });
});
