import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { SHARED_MACHINE_WORKER_DEFAULTS, withSharedMachineDefaults } from '../../src/runtime/worker-process';
import { workerSpec, type AppContext } from '../../src/topology/app-pieces';
import { topologyPorts } from '../../src/topology/ports';

const child = path.resolve(__dirname, '../support/nice-child.ts');
const run = (env: NodeJS.ProcessEnv) =>
  JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', child], { env: { ...process.env, ...env }, cwd: path.resolve(__dirname, '../..') }).toString()) as { set: number; nices: number[] };

describe('WORKER_NICE (issue 34: the API before the worker on one machine)', () => {
  test('every thread of the process takes it: those made before (a workflow thread) and after', () => {
    const { set, nices } = run({ WORKER_NICE: '7' });
    expect(set).toBeGreaterThan(2);
    expect(nices.length).toBeGreaterThan(2);
    expect(new Set(nices)).toEqual(new Set([7]));
  });

  test('unset: nothing changes', () => {
    const { set, nices } = run({ WORKER_NICE: '' });
    expect(set).toBe(0);
    expect(new Set(nices)).toEqual(new Set([0]));
  });

  test('checked at start-up: 0 to 19, a whole number', () => {
    expect(loadConfig({ WORKER_NICE: '10' }).worker.nice).toBe(10);
    for (const bad of ['20', '-1', '5.5', 'low']) expect(() => loadConfig({ WORKER_NICE: bad })).toThrow(`WORKER_NICE must be a whole number from 0 to 19, got "${bad}"`);
  });
});

describe('npm start\'s and the topology\'s worker (issue 34): a bounded heap and a nice priority unless set', () => {
  test('the defaults fill what is unset or empty; what the operator set stays', () => {
    expect(withSharedMachineDefaults({})).toMatchObject(SHARED_MACHINE_WORKER_DEFAULTS);
    expect(withSharedMachineDefaults({ WORKER_HEAP_MB: '', WORKER_NICE: ' ' })).toMatchObject({ WORKER_HEAP_MB: '512', WORKER_NICE: '10' });
    expect(withSharedMachineDefaults({ WORKER_HEAP_MB: '2048', WORKER_NICE: '0' })).toMatchObject({ WORKER_HEAP_MB: '2048', WORKER_NICE: '0' });
  });

  test('each topology worker gets them, as flag and environment', () => {
    const ctx = {
      dir: '/tmp/t',
      ports: topologyPorts(0),
      databaseUrl: 'postgres://x',
      temporalAddress: '127.0.0.1:7233',
      namespace: 'default',
      secrets: { secrets_key: 'k', callback_secret: 'c', partner: { apiUser: 'u', apiKey: 'k', subscriptionKey: 's' }, aggregator: { secretKey: 'a', webhookHash: 'h' } },
      deployment: { deploymentName: 'd', buildId: 'b' },
    } as unknown as AppContext;
    const command = workerSpec(ctx, 0).command();
    expect(command.args).toContain('--max-old-space-size=512');
    expect(command.env).toMatchObject({ WORKER_HEAP_MB: '512', WORKER_NICE: '10' });
  });
});
