/**
 * What the alerts of monitoring/prometheus/rules.yml do on given series (`promtool test rules`): which
 * alerts fire, with which labels, and which stay silent (issue 31, finding 10). The rules are loaded as
 * they are, less their annotations (promtool would compare the rendered text too; their shape is
 * test/unit/monitoring-files.test.ts's). promtool comes with `npm install`; where it is missing
 * these tests fail, naming `bash scripts/install-promtool.sh` (test/support/promtool.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { readRules } from '../support/monitoring-queries';
import { promtool } from '../support/promtool';

interface Series {
  series: string;
  values: string;
}

interface AlertCheck {
  at: string;
  alert: string;
  /** The labels of each alert expected to fire then (severity included); [] for none. */
  fires: Record<string, string>[];
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alert-rules-'));
  const rules = readRules();
  for (const group of rules.groups) for (const rule of group.rules) delete rule.annotations;
  fs.writeFileSync(path.join(dir, 'rules.yml'), toYaml(rules));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs one promtool unit test: the series, sampled every minute, and the alert checks. */
async function check(name: string, series: Series[], checks: AlertCheck[]): Promise<void> {
  const file = path.join(dir, `${name}.test.yml`);
  const doc = {
    rule_files: ['rules.yml'],
    evaluation_interval: '1m',
    tests: [
      {
        interval: '1m',
        input_series: series,
        alert_rule_test: checks.map((c) => ({ eval_time: c.at, alertname: c.alert, exp_alerts: c.fires.map((labels) => ({ exp_labels: labels })) })),
      },
    ],
  };
  fs.writeFileSync(file, toYaml(doc));
  const { code, output } = await promtool(['test', 'rules', file]);
  expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
}

/** A counter going up by `perMinute` every minute for an hour. */
const rising = (perMinute: number) => `0+${perMinute}x60`;
const requests = (labels: string) => `payments_http_requests_total{${labels}}`;

test(`a 503 on a live charge, payout or refund create is an outage (PaymentsApiUnavailable, PaymentsChargeCreateErrors)`, async () => {
  await check(
    'live-creates-503',
    [
      { series: requests('method="POST",route="/v1/charges",status="503",environment="live"'), values: rising(60) },
      { series: requests('method="POST",route="/v1/charges",status="200",environment="live"'), values: rising(60) },
      { series: requests('method="GET",route="/v1/charges/:id",status="200",environment="live"'), values: rising(600) },
    ],
    [
      { at: '15m', alert: 'PaymentsApiUnavailable', fires: [{ severity: 'critical', environment: 'live' }] },
      { at: '15m', alert: 'PaymentsChargeCreateErrors', fires: [{ severity: 'critical', environment: 'live' }] },
    ],
  );
  await check(
    'live-payouts-503',
    [
      { series: requests('method="POST",route="/v1/payouts",status="503",environment="live"'), values: rising(60) },
      { series: requests('method="GET",route="/v1/payouts/:id",status="200",environment="live"'), values: rising(600) },
    ],
    [{ at: '15m', alert: 'PaymentsApiUnavailable', fires: [{ severity: 'critical', environment: 'live' }] }],
  );
  await check(
    'live-refunds-503',
    [
      { series: requests('method="POST",route="/v1/refunds",status="503",environment="live"'), values: rising(60) },
      { series: requests('method="GET",route="/v1/refunds/:id",status="200",environment="live"'), values: rising(60) },
    ],
    [{ at: '15m', alert: 'PaymentsApiUnavailable', fires: [{ severity: 'critical', environment: 'live' }] }],
  );
});

test(`no free slot on a -webhooks queue fires TemporalWorkerSlotsExhausted; the legacy queue's single slot does not`, async () => {
  const slots = (queue: string, value: number) => ({
    series: `temporal_worker_task_slots_available{task_queue="${queue}",worker_type="ActivityWorker"}`,
    values: `${value}x30`,
  });
  await check(
    'slots-webhooks',
    [slots('payments-live-webhooks', 0), slots('payments-sandbox-webhooks', 0), slots('payments-live', 0), slots('payments-sandbox', 5), slots('payments', 0)],
    [
      {
        at: '10m',
        alert: 'TemporalWorkerSlotsExhausted',
        fires: ['payments-live-webhooks', 'payments-sandbox-webhooks', 'payments-live'].map((q) => ({ severity: 'warning', task_queue: q, worker_type: 'ActivityWorker' })),
      },
    ],
  );
});

test(`a payout held for review is not trouble: PaymentsNeedingAttention fires on kind="trouble" only; a review waiting over 4 hours fires PaymentsPayoutReviewsOverdue`, async () => {
  const attention = (labels: string, values: string) => ({ series: `payments_needing_attention{${labels}}`, values });
  await check(
    'review-not-trouble',
    [
      attention('type="payout",environment="live",kind="review"', '3x120'),
      attention('type="payout",environment="live",kind="trouble"', '0x120'),
      attention('type="charge",environment="sandbox",kind="trouble"', '0x60 1x60'),
      { series: 'payments_payout_reviews_overdue{environment="live"}', values: '0x60 2x60' },
    ],
    [
      { at: '50m', alert: 'PaymentsNeedingAttention', fires: [] },
      { at: '50m', alert: 'PaymentsPayoutReviewsOverdue', fires: [] },
      { at: '1h30m', alert: 'PaymentsNeedingAttention', fires: [{ severity: 'warning', type: 'charge', environment: 'sandbox' }] },
      { at: '1h30m', alert: 'PaymentsPayoutReviewsOverdue', fires: [{ severity: 'warning', environment: 'live' }] },
    ],
  );
});

test(`a return of late money not paid for a day fires PaymentsReturnNotPaid (issue 43); a younger one, or none, does not`, async () => {
  // The oldest unpaid return: 23 h 30 min old at the start, one sample a minute (+60 s each); the day passes at 30 min.
  await check(
    'return-not-paid',
    [{ series: 'payments_returns_in_transit_oldest_age_seconds{instance="api:8080"}', values: '84600+60x90' }],
    [
      { at: '40m', alert: 'PaymentsReturnNotPaid', fires: [] },
      { at: '50m', alert: 'PaymentsReturnNotPaid', fires: [{ severity: 'critical' }] },
    ],
  );
  await check('return-none', [{ series: 'payments_returns_in_transit_oldest_age_seconds{instance="api:8080"}', values: '0x90' }], [{ at: '80m', alert: 'PaymentsReturnNotPaid', fires: [] }]);
});

test(`a partner's breaker open or half-open for 2 minutes fires PartnerBreakerOpen (issue 46), going back and forth between the two included; drained for an hour fires PartnerDrained`, async () => {
  const breaker = (partner: string, state: string, values: string) => ({ series: `partner_breaker_state{partner="${partner}",state="${state}",instance="worker-1:9465"}`, values });
  await check(
    'partner-breaker',
    [
      // momo: closed for 10 minutes, then open 1 minute, half-open 1, open 1, half-open 1, closed again.
      breaker('momo', 'closed', '1x9 0x4 1x20'),
      breaker('momo', 'open', '0x9 1 0 1 0 0x20'),
      breaker('momo', 'half_open', '0x9 0 1 0 1 0x20'),
      // aggregator: open for a single minute (a probe closed it at once): too short.
      breaker('aggregator', 'closed', '1x4 0 1x29'),
      breaker('aggregator', 'open', '0x4 1 0x29'),
    ],
    [
      { at: '10m', alert: 'PartnerBreakerOpen', fires: [] },
      { at: '12m', alert: 'PartnerBreakerOpen', fires: [{ severity: 'critical', partner: 'momo' }] },
      { at: '6m', alert: 'PartnerBreakerOpen', fires: [] },
      { at: '20m', alert: 'PartnerBreakerOpen', fires: [] },
    ],
  );
  await check(
    'partner-drained',
    [breaker('momo', 'drained', '1x90'), breaker('aggregator', 'drained', '0x60 1x30')],
    [
      { at: '50m', alert: 'PartnerDrained', fires: [] },
      { at: '70m', alert: 'PartnerDrained', fires: [{ severity: 'info', partner: 'momo' }] },
    ],
  );
});
