/**
 * `promtool check rules` on the alert rules (monitoring/prometheus/rules.yml), and on the dashboard's
 * queries wrapped as recording rules (so their PromQL gets promtool's type and arity checks too).
 * promtool is built from its Go module by scripts/install-promtool.sh (pinned; `.ci/run` runs it
 * before `npm test` and sets PROMTOOL_PATH). Where promtool is required: PROMTOOL_PATH is set, or CI
 * is true; then a missing promtool fails this test, saying how to install it. Elsewhere (a fresh
 * clone: no Go, nothing installed by hand) it runs when .cache/promtool/bin/promtool is there and is
 * otherwise reported as skipped: the same expressions' syntax is checked by Prometheus's own parser
 * from npm in test/unit/monitoring-promql.test.ts, which always runs.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringify as toYaml } from 'yaml';
import { dashboardQueries, ROOT, RULES_FILE, ruleQueries, withoutGrafanaVariables } from '../support/monitoring-queries';

const PROMTOOL = process.env.PROMTOOL_PATH || path.join(ROOT, '.cache/promtool/bin/promtool');
/** PROMTOOL_PATH set or CI=true: promtool must be there. */
const REQUIRED = !!process.env.PROMTOOL_PATH || process.env.CI === 'true';

function installed(): boolean {
  try {
    fs.accessSync(PROMTOOL, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `test` where promtool is installed or required; elsewhere `test.skip` (the summary counts it), its name saying why. */
const RUN = REQUIRED || installed();
const promtoolTest = RUN ? test : test.skip;
const WHY = RUN ? '' : ' [skipped: no promtool here and neither PROMTOOL_PATH nor CI is set; monitoring-promql.test.ts parses the same PromQL]';

function requirePromtool(): string {
  try {
    fs.accessSync(PROMTOOL, fs.constants.X_OK);
  } catch {
    throw new Error(
      `promtool is missing: no executable at ${PROMTOOL}. Install the pinned version with \`bash scripts/install-promtool.sh\` ` +
        '(needs Go 1.26.7+; builds into .cache/promtool/bin, a few minutes the first time), or set PROMTOOL_PATH to a promtool binary.',
    );
  }
  return PROMTOOL;
}

async function checkRules(file: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(requirePromtool(), ['check', 'rules', file], { timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string; message: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

promtoolTest(`promtool check rules accepts monitoring/prometheus/rules.yml${WHY}`, async () => {
  const { code, output } = await checkRules(RULES_FILE);
  expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining(`SUCCESS: ${ruleQueries().length} rules found`) });
});

promtoolTest(`promtool parses every query of the Grafana dashboard (as recording rules, Grafana's variables filled in)${WHY}`, async () => {
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
