import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { applyWorkerNice } from '../../src/runtime/worker-nice';

/**
 * For test/unit/worker-nice.test.ts: a process that has made a worker thread (as the SDK makes a
 * workflow thread) before applyWorkerNice runs, then makes another after; prints the nice value
 * of every thread it has (field 19 of /proc/self/task/<tid>/stat).
 */
const nices = () =>
  fs.readdirSync('/proc/self/task').map((tid) => Number(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]));
async function main(): Promise<void> {
  const before = new Worker('setInterval(() => {}, 1000)', { eval: true });
  await new Promise((resolve) => before.once('online', resolve));
  const set = applyWorkerNice();
  const after = new Worker('setInterval(() => {}, 1000)', { eval: true });
  await new Promise((resolve) => after.once('online', resolve));
  console.log(JSON.stringify({ set, nices: nices() }));
  await before.terminate();
  await after.terminate();
}
void main();
