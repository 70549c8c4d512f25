/**
 * Issue 31, finding 8: the no-pollers alerts count per Worker Deployment build (`promtool test rules`
 * on monitoring/prometheus/rules.yml; test/support/promtool-alerts.ts). A build retired while runs are
 * still pinned to it fires PaymentsPinnedBuildWithoutPollers, though the new build polls the queue
 * (PaymentsNoPollers, which counts every build's pollers together, stays silent); a build that still
 * polls, or holds no run, does not; a queue nobody polls still fires PaymentsNoPollers.
 */
import { checkAlerts, type InputSeries } from '../support/promtool-alerts';

/** Two API processes export the same figures (instance a and b): the rules combine them with max. */
const both = (name: string, labels: string, values: string): InputSeries[] =>
  ['a', 'b'].map((instance) => ({ series: `${name}{instance="${instance}",${labels}}`, values }));
const pollers = (queue: string, type: string, build: string | null, values: string) =>
  both('payments_task_queue_pollers', `environment="sandbox",task_queue="${queue}",task_type="${type}"${build === null ? '' : `,build_id="${build}"`}`, values);
const runs = (queue: string, build: string | null, values: string) =>
  both('payments_open_runs_by_build', `environment="sandbox",task_queue="${queue}"${build === null ? '' : `,build_id="${build}"`}`, values);
const everyType = (queue: string, build: string | null, values: string) => [...pollers(queue, 'workflow', build, values), ...pollers(queue, 'activity', build, values)];

test(`a build retired with runs pinned to it fires PaymentsPinnedBuildWithoutPollers while the current build polls the queue; PaymentsNoPollers stays silent`, async () => {
  const q = 'payments-sandbox';
  const result = await checkAlerts(
    [
      ...everyType(q, null, '0x30'),
      ...everyType(q, 'build-b', '2x30'),
      // Build A polls for 5 minutes, then its workers stop; two runs stay pinned to it.
      ...everyType(q, 'build-a', '2x5 0x25'),
      ...runs(q, 'build-a', '2x30'),
      ...runs(q, 'build-b', '7x30'),
      ...runs(q, null, '0x30'),
      // Build C drained: no run, no poller.
      ...everyType(q, 'build-c', '0x30'),
      ...runs(q, 'build-c', '0x30'),
    ],
    [
      { at: '8m', alert: 'PaymentsPinnedBuildWithoutPollers', fires: [] },
      { at: '15m', alert: 'PaymentsPinnedBuildWithoutPollers', fires: [{ severity: 'critical', environment: 'sandbox', task_queue: q, build_id: 'build-a' }] },
      { at: '15m', alert: 'PaymentsNoPollers', fires: [] },
    ],
  );
  expect(result).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
});

test(`a build whose workflow pollers remain but whose activity pollers are gone fires too; a draining build still polled does not`, async () => {
  const q = 'payments-live';
  const live = (s: InputSeries[]) => s.map((x) => ({ ...x, series: x.series.replace('environment="sandbox"', 'environment="live"') }));
  const result = await checkAlerts(
    live([
      ...pollers(q, 'workflow', 'build-a', '1x30'),
      ...pollers(q, 'activity', 'build-a', '0x30'),
      ...runs(q, 'build-a', '1x30'),
      ...everyType(q, 'build-b', '1x30'),
      ...runs(q, 'build-b', '4x30'),
    ]),
    [{ at: '15m', alert: 'PaymentsPinnedBuildWithoutPollers', fires: [{ severity: 'critical', environment: 'live', task_queue: q, build_id: 'build-a' }] }],
  );
  expect(result).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
});

test(`unversioned workers: a queue nobody polls fires PaymentsNoPollers, and no build alert`, async () => {
  const result = await checkAlerts(
    [...everyType('payments-sandbox', null, '0x30'), ...runs('payments-sandbox', null, '5x30'), ...everyType('payments-sandbox-webhooks', null, '3x30')],
    [
      { at: '10m', alert: 'PaymentsNoPollers', fires: ['workflow', 'activity'].map((t) => ({ severity: 'critical', environment: 'sandbox', task_queue: 'payments-sandbox', task_type: t })) },
      { at: '10m', alert: 'PaymentsPinnedBuildWithoutPollers', fires: [] },
    ],
  );
  expect(result).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
});
