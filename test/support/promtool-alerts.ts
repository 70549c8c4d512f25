import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { readRules } from './monitoring-queries';
import { promtool } from './promtool';

/**
 * `promtool test rules` on the real monitoring/prometheus/rules.yml (less annotations: promtool would
 * compare the rendered text too) with given series, sampled every minute: which alerts fire then, with
 * which labels. For test/unit/monitoring-build-alerts.test.ts and the versioning test, which feeds it
 * the series a real scrape exported.
 */
export interface InputSeries {
  series: string;
  values: string;
}

export interface AlertCheck {
  at: string;
  alert: string;
  /** The labels of each alert expected to fire then (severity included); [] for none. */
  fires: Record<string, string>[];
}

export async function checkAlerts(series: InputSeries[], checks: AlertCheck[]): Promise<{ code: number; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alert-check-'));
  try {
    const rules = readRules();
    for (const group of rules.groups) for (const rule of group.rules) delete rule.annotations;
    fs.writeFileSync(path.join(dir, 'rules.yml'), toYaml(rules));
    const doc = {
      rule_files: ['rules.yml'],
      evaluation_interval: '1m',
      tests: [{ interval: '1m', input_series: series, alert_rule_test: checks.map((c) => ({ eval_time: c.at, alertname: c.alert, exp_alerts: c.fires.map((labels) => ({ exp_labels: labels })) })) }],
    };
    const file = path.join(dir, 'test.yml');
    fs.writeFileSync(file, toYaml(doc));
    return await promtool(['test', 'rules', file]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The samples of `name` in a Prometheus text exposition, as promtool input series holding their value for `minutes`. */
export function scrapedSeries(exposition: string, name: string, minutes = 30): InputSeries[] {
  return [...exposition.matchAll(new RegExp(`^(${name}(?:\\{[^}]*\\})?) (\\S+)$`, 'gm'))].map((m) => ({ series: m[1], values: `${m[2]}x${minutes}` }));
}
