import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './paths';

/**
 * One worker of the topology on a clock of its own (the chaos run's `clock_skew` fault, issue 44).
 * With TOPOLOGY_CLOCK_SKEW=1 (the chaos run's topology sets it) and libfaketime installed
 * (`bash scripts/install-faketime.sh`: Debian's package unpacked into .cache/faketime), SKEWED_WORKER
 * runs with the library preloaded, reading its offset from a file in the topology's folder (`+0` until
 * a fault writes another, e.g. `-90s`; read again every second). Only the wall clock moves (Date,
 * `clock_gettime(CLOCK_REALTIME)` in Node and in sdk-core): the monotonic clock, which timers and
 * timeouts use, does not (FAKETIME_DONT_FAKE_MONOTONIC).
 */

export const SKEWED_WORKER = 'worker-2';

/** The preloaded library, or null when it is not installed. */
export function faketimeLibrary(): string | null {
  const lib = path.join(projectRoot(), '.cache/faketime/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1');
  return fs.existsSync(lib) ? lib : null;
}

/** The file SKEWED_WORKER's offset is read from; it exists only in a topology whose worker is skewable. */
export const skewFile = (dir: string): string => path.join(dir, `clock-skew-${SKEWED_WORKER}`);

/** Whether the topology in `dir` runs SKEWED_WORKER with libfaketime. */
export const skewable = (dir: string): boolean => fs.existsSync(skewFile(dir));

/** Moves SKEWED_WORKER's wall clock `seconds` from the machine's (0: back to it). */
export function setSkew(dir: string, seconds: number): void {
  fs.writeFileSync(skewFile(dir), seconds === 0 ? '+0\n' : `${seconds > 0 ? '+' : '-'}${Math.abs(Math.round(seconds))}s\n`);
}

/** The environment that puts SKEWED_WORKER on the file's clock (the file set to `+0` first). */
export function skewEnv(dir: string, lib: string): NodeJS.ProcessEnv {
  setSkew(dir, 0);
  return { LD_PRELOAD: lib, FAKETIME_TIMESTAMP_FILE: skewFile(dir), FAKETIME_CACHE_DURATION: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1' };
}
