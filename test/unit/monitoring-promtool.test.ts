/**
 * `promtool check rules` on the alert rules (monitoring/prometheus/rules.yml), and on the dashboard's
 * queries wrapped as recording rules (so their PromQL gets promtool's type and arity checks too).
 * promtool comes with `npm install` (test/support/promtool.ts); where it is missing these tests fail,
 * naming `bash scripts/install-promtool.sh`. The same expressions' syntax is also checked by
 * Prometheus's own parser from npm in test/unit/monitoring-promql.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { dashboardQueries, RULES_FILE, ruleQueries, withoutGrafanaVariables } from '../support/monitoring-queries';
import { promtool } from '../support/promtool';

const checkRules = (file: string) => promtool(['check', 'rules', file]);

test(`promtool check rules accepts monitoring/prometheus/rules.yml`, async () => {
  const { code, output } = await checkRules(RULES_FILE);
  expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining(`SUCCESS: ${ruleQueries().length} rules found`) });
});

test(`promtool parses every query of the Grafana dashboard (as recording rules, Grafana's variables filled in)`, async () => {
  const queries = dashboardQueries();
  const doc = { groups: [{ name: 'dashboard-queries', rules: queries.map((q, i) => ({ record: `dashboard:query_${i}`, expr: withoutGrafanaVariables(q.expr) })) }] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-queries-'));
  try {
    const file = path.join(dir, 'dashboard-queries.yml');
    fs.writeFileSync(file, toYaml(doc));
    const { code, output } = await checkRules(file);
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining(`SUCCESS: ${queries.length} rules found`) });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
