/**
 * The PromQL of monitoring/ (the alert rules and the Grafana dashboard) and the metric names it uses,
 * for the tests that check those files: test/unit/monitoring-files.test.ts (shape),
 * test/unit/monitoring-promtool.test.ts (promtool) and test/integration/monitoring-metrics.test.ts
 * (every name is really exported).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

export const ROOT = path.resolve(__dirname, '../..');
export const RULES_FILE = path.join(ROOT, 'monitoring/prometheus/rules.yml');
export const DASHBOARD_FILE = path.join(ROOT, 'monitoring/grafana/payments-dashboard.json');

export interface RuleDoc {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RulesDoc {
  groups: { name: string; rules: RuleDoc[] }[];
}

export interface DashboardTarget {
  refId?: string;
  expr?: string;
  datasource?: unknown;
}

export interface DashboardPanel {
  id?: number;
  title?: string;
  type?: string;
  datasource?: unknown;
  targets?: DashboardTarget[];
  panels?: DashboardPanel[];
}

export const readRules = (): RulesDoc => parseYaml(fs.readFileSync(RULES_FILE, 'utf8')) as RulesDoc;
export const readDashboard = (): { panels: DashboardPanel[]; templating?: { list?: { name: string; query?: unknown }[] } } =>
  JSON.parse(fs.readFileSync(DASHBOARD_FILE, 'utf8'));

/** Every panel, rows' nested panels included. */
export function allPanels(panels: DashboardPanel[]): DashboardPanel[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);
}

export interface NamedQuery {
  /** `alert Foo` / `record foo` or `panel "Title" A`. */
  where: string;
  expr: string;
}

export function ruleQueries(rules: RulesDoc = readRules()): NamedQuery[] {
  return rules.groups.flatMap((g) => g.rules.map((r) => ({ where: r.alert ? `alert ${r.alert}` : `record ${r.record}`, expr: r.expr })));
}

export function dashboardQueries(dashboard = readDashboard()): NamedQuery[] {
  return allPanels(dashboard.panels).flatMap((p) =>
    (p.targets ?? []).filter((t) => typeof t.expr === 'string').map((t) => ({ where: `panel "${p.title}" ${t.refId ?? ''}`.trim(), expr: t.expr as string })),
  );
}

/**
 * A dashboard query as plain PromQL: Grafana's interval variables become 5m, any other variable
 * (`$environment`, `${environment}`) a regex that matches anything (they are used in `=~` matchers).
 */
export function withoutGrafanaVariables(expr: string): string {
  return expr.replace(/\$(__rate_interval|__interval|__range)\b|\$\{__(rate_interval|interval|range)\}/g, '5m').replace(/\$\{\w+(:\w+)?\}|\$\w+/g, '.*');
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'atan2']);
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const AGGREGATIONS = new Set(['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio']);

/**
 * The metric names a PromQL expression selects. A small tokenizer, enough for the queries here: skips
 * strings, label matchers (`{…}`), ranges and subqueries (`[…]`), Grafana variables, numbers and
 * durations, function and aggregation names (an identifier followed by `(`), keywords and the label
 * lists of by/without/on/ignoring/group_left/group_right.
 */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  let i = 0;
  const skipString = (quote: string) => {
    i++;
    while (i < expr.length && expr[i] !== quote) i += expr[i] === '\\' ? 2 : 1;
    i++;
  };
  const skipBalanced = (open: string, close: string) => {
    let depth = 0;
    while (i < expr.length) {
      const c = expr[i];
      if (c === '"' || c === "'" || c === '`') {
        skipString(c);
        continue;
      }
      if (c === open) depth++;
      if (c === close && --depth === 0) {
        i++;
        return;
      }
      i++;
    }
  };
  const nextNonSpace = (from: number) => {
    let j = from;
    while (j < expr.length && /\s/.test(expr[j])) j++;
    return j;
  };
  while (i < expr.length) {
    const c = expr[i];
    if (c === '"' || c === "'" || c === '`') skipString(c);
    else if (c === '{') skipBalanced('{', '}');
    else if (c === '[') skipBalanced('[', ']');
    else if (c === '$') {
      i++;
      if (expr[i] === '{') skipBalanced('{', '}');
      else while (i < expr.length && /\w/.test(expr[i])) i++;
    } else if (/[0-9.]/.test(c)) {
      while (i < expr.length && /[0-9a-zA-Z_.+]/.test(expr[i]) && !(expr[i] === '+' && !/[eE]/.test(expr[i - 1]))) i++;
    } else if (/[a-zA-Z_:]/.test(c)) {
      const start = i;
      while (i < expr.length && /[a-zA-Z0-9_:]/.test(expr[i])) i++;
      const word = expr.slice(start, i);
      const after = nextNonSpace(i);
      if (LABEL_LISTS.has(word.toLowerCase())) {
        if (expr[after] === '(') {
          i = after;
          skipBalanced('(', ')');
        }
      } else if (expr[after] === '(' || KEYWORDS.has(word.toLowerCase()) || (AGGREGATIONS.has(word) && /^(by|without)\b/.test(expr.slice(after)))) {
        // a function, an aggregation (`sum (…)`, `sum by (…) (…)`) or a keyword
      } else {
        names.add(word);
      }
    } else i++;
  }
  return [...names];
}

/** The names of the samples in a Prometheus text exposition (histograms as their _bucket, _sum and _count series). */
export function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{\s]/.exec(line);
    if (match) names.add(match[1]);
  }
  return names;
}
