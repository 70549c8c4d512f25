import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../src/config';

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
