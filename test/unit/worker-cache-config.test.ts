import { execFileSync } from 'node:child_process';
import { loadConfig } from '../../src/config';
import { workerCapacity } from '../../src/runtime/worker-capacity';
import { StartupError } from '../../src/support/startup-error';
import { workerHeapArgs } from '../../src/runtime/worker-heap';

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

describe('WORKER_HEAP_MB (issue 34): the heap limit of each isolate of the worker process', () => {
  test('becomes --max-old-space-size where the worker process starts, and the config carries it', () => {
    expect(workerHeapArgs({ WORKER_HEAP_MB: '512' })).toEqual(['--max-old-space-size=512']);
    expect(loadConfig({ WORKER_HEAP_MB: '512' }).worker.heapMb).toBe(512);
  });

  test('unset: no flag (V8\'s own limit); below 256 MiB or not a whole number: refused by name at start-up', () => {
    expect(workerHeapArgs({})).toEqual([]);
    expect(loadConfig({}).worker.heapMb).toBeUndefined();
    for (const bad of ['128', '512.5', '1g', '-1']) {
      expect(() => loadConfig({ WORKER_HEAP_MB: bad })).toThrow(`WORKER_HEAP_MB must be a whole number of MiB, at least 256, got "${bad}"`);
      expect(() => workerHeapArgs({ WORKER_HEAP_MB: bad })).toThrow(StartupError);
    }
  });

  test('a child started with the flag has that heap limit (what the worker process and its workflow threads get)', () => {
    const out = execFileSync(process.execPath, [...workerHeapArgs({ WORKER_HEAP_MB: '384' }), '-e', `
      const { Worker } = require('node:worker_threads');
      const v8 = require('node:v8');
      const main = v8.getHeapStatistics().heap_size_limit;
      const w = new Worker("require('node:worker_threads').parentPort.postMessage(require('node:v8').getHeapStatistics().heap_size_limit)", { eval: true });
      w.once('message', (thread) => { console.log(JSON.stringify({ main, thread })); w.terminate(); });
    `]).toString();
    const { main, thread } = JSON.parse(out) as { main: number; thread: number };
    const mib = (n: number) => n / (1024 * 1024);
    // The limit is the old space plus V8's young generation (192 MiB on Node 24), far below the
    // default (about 4.2 GiB on this 24 GiB machine), and the thread's is the main thread's.
    expect(mib(main)).toBeGreaterThanOrEqual(384);
    expect(mib(main)).toBeLessThan(384 + 256);
    expect(thread).toBe(main);
  });
});
