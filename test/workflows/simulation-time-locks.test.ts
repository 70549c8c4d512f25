import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { timeLockReleaser } from '../../src/simulation/time-locks';
import { randomBase62 } from '../../src/support/new-id';
import { installRuntime } from '../../workers/workflow-bundle';
import { testServerPath } from '../support/binaries';
import { finishSignal } from './support/abandoned-child-workflows';

/**
 * The time-skipping test server keeps a time lock for each child workflow that closes after its parent
 * (src/simulation/time-locks.ts); the simulation's engine gives each back once, or its time jumps would
 * pass at the pace of real time (seed 1000 of `npm run simulate` stalled on exactly this).
 */

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let client: Client;
let releaser: ReturnType<typeof timeLockReleaser>;
const taskQueue = `time-locks-${randomBase62(6)}`;

beforeAll(async () => {
  installRuntime('ERROR');
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
  // A plain client: awaiting a result through it does not unlock time skipping (the engine's client is one too).
  client = new Client({ connection: env.connection, namespace: 'default' });
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: require.resolve('./support/abandoned-child-workflows') });
  running = worker.run();
  releaser = timeLockReleaser(env);
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

async function sleeping() {
  return client.workflow.start('sleeper', { taskQueue, workflowId: `sleeper-${randomBase62(8)}` });
}

test('a child that closes after its parent leaks a lock: time stops skipping until the lock is given back, once', async () => {
  const childId = `child-${randomBase62(8)}`;
  await client.workflow.execute('abandoningParent', { taskQueue, workflowId: `parent-${randomBase62(8)}`, args: [childId] });
  const child = client.workflow.getHandle(childId);
  await child.signal(finishSignal);
  expect(await child.result()).toBe('done');
  await sleeping();

  // Locked: three seconds of workflow time take three seconds of real time, though a timer waits an hour away.
  const real = performance.now();
  await env.sleep(3_000);
  expect(performance.now() - real).toBeGreaterThanOrEqual(2_500);

  expect(await releaser.release()).toEqual([childId]);
  expect(await releaser.release()).toEqual([]);
  expect(releaser.released()).toBe(1);

  // Skipping again: an hour of workflow time passes (at real pace this test would time out).
  const before = await env.currentTimeMs();
  await env.sleep(3_600_000);
  expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(3_600_000);
}, 60_000);

test('a child whose parent heard of its close leaks nothing: no lock is given back', async () => {
  const childId = `child-${randomBase62(8)}`;
  const parent = await client.workflow.start('waitingParent', { taskQueue, workflowId: `parent-${randomBase62(8)}`, args: [childId] });
  for (let i = 0; i < 100; i++) {
    const described = await client.workflow.getHandle(childId).describe().catch(() => null);
    if (described) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await client.workflow.getHandle(childId).signal(finishSignal);
  expect(await parent.result()).toBe('done');
  expect(await releaser.release()).toEqual([]);
  expect(releaser.released()).toBe(1);
}, 60_000);
