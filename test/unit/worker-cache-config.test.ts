import { loadConfig } from '../../src/config';
import { workerCapacity } from '../../src/runtime/worker-capacity';

describe('WORKER_CACHED_WORKFLOWS (issue 34: the worker memory under many payments in flight)', () => {
  test('bounds the whole process cache, split between its Workers', () => {
    const config = loadConfig({ WORKER_CACHED_WORKFLOWS: '800' });
    expect(config.worker.cachedWorkflows).toBe(800);
    const capacity = workerCapacity(config.worker.poolMax, config.worker);
    const perWorker = [...Object.values(capacity.queues), ...Object.values(capacity.deliveries)].map((b) => b!.cachedWorkflows);
    expect(perWorker.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(800);
    expect(Math.min(...perWorker)).toBeGreaterThanOrEqual(10);
  });

  test('unset, the heap decides; a value below 1 or not a whole number is refused by name', () => {
    expect(loadConfig({}).worker.cachedWorkflows).toBeUndefined();
    expect(() => loadConfig({ WORKER_CACHED_WORKFLOWS: '0' })).toThrow('WORKER_CACHED_WORKFLOWS must be a positive integer, got "0"');
    expect(() => loadConfig({ WORKER_CACHED_WORKFLOWS: '1.5' })).toThrow('WORKER_CACHED_WORKFLOWS must be a positive integer, got "1.5"');
  });
});
