import path from 'node:path';
import { counterDeltas, COUNTER } from '../../scripts/bench/cost/cost-counters';
import { bundleModules, mapBundleFrames, packageOf, summarizeProfile, type CpuProfile } from '../../scripts/bench/cost/cpu-profile-summary';
import { parsePrometheus, sumSamples } from '../../scripts/bench/shared/prometheus-text';
import { renderCostReport, type CostPhase } from '../../scripts/bench/cost/cost-report';
import type { PhaseResult } from '../../scripts/bench/shared/load';

const REPO = path.resolve(__dirname, '../..');

describe('the cost bench (issue 48)', () => {
  test('reads a Prometheus page by metric and labels, not its namesakes', () => {
    const samples = parsePrometheus(
      [
        '# TYPE service_requests counter',
        'service_requests{namespace="default",operation="RespondWorkflowTaskCompleted",service_name="frontend"} 12',
        'service_requests{namespace="default",operation="RespondWorkflowTaskCompleted",service_name="history"} 12',
        'service_requests_total{operation="x"} 99',
        'persistence_requests{namespace="system",operation="GetNamespace"} 3',
        'persistence_requests{namespace="default",operation="UpdateWorkflowExecution"} 4',
      ].join('\n'),
    );
    expect(sumSamples(samples, 'service_requests', (l) => l.service_name === 'frontend')).toBe(12);
    expect(sumSamples(samples, 'persistence_requests')).toBe(7);
    expect(sumSamples(samples, 'absent')).toBe(0);
  });

  test('counts a phase as the difference of two readings', () => {
    const page = (tasks: number, persisted: number) =>
      parsePrometheus(`service_requests{namespace="default",operation="RespondWorkflowTaskCompleted",service_name="frontend"} ${tasks}\npersistence_requests{namespace="default",operation="UpdateWorkflowExecution"} ${persisted}`);
    const d = counterDeltas({ server: page(10, 100), sdk: [] }, { server: page(25, 160), sdk: [] });
    expect(d.server?.[COUNTER.workflowTasks]).toBe(15);
    expect(d.server?.[COUNTER.persistenceDefault]).toBe(60);
    expect(d.persistenceByOperation).toEqual([['UpdateWorkflowExecution', 60]]);
    expect(counterDeltas({}, { server: page(1, 1) }).server).toBeUndefined();
  });

  test('names the package of a profile frame', () => {
    const frame = (url: string, functionName = 'f') => ({ functionName, url, lineNumber: 0 });
    expect(packageOf(frame(`file://${REPO}/node_modules/@mikro-orm/core/index.js`))).toBe('node_modules/@mikro-orm/core');
    expect(packageOf(frame(`${REPO}/node_modules/pg/lib/client.js`))).toBe('node_modules/pg');
    expect(packageOf(frame(`file://${REPO}/src/persistence/event-log.ts`))).toBe('src/persistence');
    expect(packageOf(frame(`file://${REPO}/activities/charges.ts`))).toBe('activities/');
    expect(packageOf(frame('node:internal/streams/writable'))).toBe('node: (core)');
    expect(packageOf(frame('workflow-bundle-11632a4994d2796651a1.js'))).toMatch(/workflow bundle/);
    expect(packageOf(frame('', '(garbage collector)'))).toBe('(garbage collector)');
  });

  test('splits sampled time into self and inclusive time, within a window', () => {
    const at = (name: string) => `file://${REPO}/src/${name}/x.ts`;
    // root → outer (src/services) → inner (node_modules/pg); idle beside them.
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 4] },
        { id: 2, callFrame: { functionName: 'outer', url: at('services'), lineNumber: 0 }, children: [3] },
        { id: 3, callFrame: { functionName: 'inner', url: `file://${REPO}/node_modules/pg/a.js`, lineNumber: 0 } },
        { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
      ],
      startTime: 0,
      endTime: 5000,
      samples: [2, 3, 3, 4, 2],
      timeDeltas: [0, 1000, 1000, 1000, 1000],
    };
    const whole = summarizeProfile(profile, 'p.cpuprofile');
    expect(whole.totalMs).toBe(4);
    expect(whole.busyMs).toBe(3);
    expect(Object.fromEntries(whole.byPackage)).toEqual({ 'src/services': 1, 'node_modules/pg': 2, '(idle)': 1 });
    expect(whole.projectInclusive).toEqual([['outer x.ts:1', 3]]);
    // Samples at 1 ms and 2 ms only.
    const window = summarizeProfile(profile, 'p.cpuprofile', 0.0015, 0.0025);
    expect(window.totalMs).toBe(1);
    expect(Object.fromEntries(window.byPackage)).toEqual({ 'node_modules/pg': 1 });
  });

  test('divides each phase by its items and gives each PostgreSQL server its rows', () => {
    const result = (latency: number, wallMs: number): PhaseResult => ({
      name: 'x',
      n: 10,
      concurrency: 2,
      create: { values: Array.from({ length: 10 }, (_, i) => `id${i}`), latenciesMs: Array(10).fill(latency), errors: [], wallMs: 100 },
      completeWallMs: wallMs,
      completed: 10,
      completeErrors: [],
      historyLength: 5,
    });
    const phase = (column: CostPhase['column'], cpuS: number, wallMs: number, latency: number): CostPhase => ({
      column,
      items: 10,
      result: result(latency, wallMs),
      cost: {
        cpu: { node: cpuS, worker: 0, temporal: 0, postgres: 0, apis: 0, machine: cpuS },
        counters: {},
        sql: [
          { server: 'service-postgres', calls: 50, execMs: 5, top: [] },
          { server: 'temporal-postgres', calls: 200, execMs: 20, top: [] },
        ],
        wallMs,
        load1: 0.5,
      },
      histories: [],
    });
    const charge: CostPhase = {
      ...phase('charge', 1, 2000, 300),
      workflows: { byType: { chargeWorkflow: 10, webhookDeliveryWorkflow: 20 }, samples: { chargeWorkflow: ['c'], webhookDeliveryWorkflow: ['d'] } },
      histories: [
        { kind: 'chargeWorkflow', workflowId: 'c', events: 27, byType: {} },
        { kind: 'webhookDeliveryWorkflow', workflowId: 'd', events: 8, byType: {} },
      ],
    };
    const md = renderCostReport([], [{ name: 'topology', title: 'topology', topology: true, notes: [], skipped: [], profiles: [], phases: [charge, phase('bare-start', 0.1, 500, 100), phase('bare-activity', 0.25, 1000, 100)] }], []);
    expect(md).toMatch(/\| workflows started \| 3\.00 \|/);
    expect(md).toMatch(/\| history events \(.*\) \| 43\.0 \|/);
    expect(md).toContain('| **total CPU-ms (the named processes)** | 100.00 | 10.00 | 25.00 |');
    expect(md).toContain('| SQL statements (pg_stat_statements): temporal-postgres | 20.0 | 20.0 | 20.0 |');
    expect(md).toContain('| SQL statements (pg_stat_statements): both | 25.0 | 25.0 | 25.0 |');
    expect(md).toMatch(/CPU per completed charge .* \| 4\.00 /);
    expect(md).toMatch(/charge completions\/s ÷ .* \| 0\.50 /);
    expect(md).toMatch(/create p99 ÷ bare start p99 \| 3\.00 /);
  });

  test('names the module of a workflow-bundle frame by the bundle\'s module lines', () => {
    const code = ['var __TEMPORAL__;', '/******/ (() => {', '/***/ "./node_modules/@temporalio/workflow/lib/x.js"', 'a();', '/***/ "./workflows/charge.ts"', 'b();', 'c();', '/******/ var __webpack_require__;'].join('\n');
    const modules = bundleModules(code);
    expect(modules.map((m) => [m.line, m.file === '' ? '' : path.relative(REPO, m.file)])).toEqual([
      [2, 'node_modules/@temporalio/workflow/lib/x.js'],
      [4, 'workflows/charge.ts'],
      [7, ''],
    ]);
    const frame = (id: number, lineNumber: number) => ({ id, callFrame: { functionName: `f${id}`, url: 'workflow-bundle-abc.js', lineNumber } });
    const mapped = mapBundleFrames({ nodes: [frame(1, 1), frame(2, 3), frame(3, 6), frame(4, 7)], startTime: 0, endTime: 0, samples: [], timeDeltas: [] }, modules);
    expect(mapped.nodes.map((n) => packageOf(n.callFrame))).toEqual(['(workflow bundle)', 'node_modules/@temporalio/workflow', 'workflows/', '(workflow bundle)']);
  });
});
