const { createHash } = require('node:crypto');

/**
 * The machine's speed, as the CPU seconds a fixed piece of work costs this process (the budget's
 * calibration: test/support/test-budget.js). The work is hashing (native code) and an integer loop
 * (JIT-compiled JavaScript): work that allocates little, so the garbage collector and the JIT's
 * warm-up do not move the figure (JSON and sorting moved it by half between runs on one idle
 * machine; these move it by a few per cent). After one warm-up, REPEATS runs; the least is kept, the
 * run least disturbed by whatever else the machine was doing. The same suite on a machine whose
 * figure is k times larger costs about k times the CPU seconds per file.
 */
const REPEATS = 7;

function workOnce() {
  const start = process.cpuUsage();
  let checksum = 0;
  const block = Buffer.alloc(1 << 14, 7);
  for (let i = 0; i < 600; i++) checksum += createHash('sha256').update(block).digest()[0];
  let x = 1;
  for (let i = 0; i < 4_000_000; i++) x = (x * 1_103_515_245 + 12_345 + i) % 2_147_483_648;
  checksum += x;
  const used = process.cpuUsage(start);
  if (checksum < 0) throw new Error('unreachable: keeps the work from being optimised away');
  return (used.user + used.system) / 1e6;
}

/** CPU seconds of the fixed work on this machine now: the least of REPEATS runs, rounded to the millisecond. */
function machineSeconds() {
  workOnce();
  let least = Infinity;
  for (let i = 0; i < REPEATS; i++) least = Math.min(least, workOnce());
  return Math.round(least * 1000) / 1000;
}

module.exports = { machineSeconds };
