import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/** This process's V8 CPU profiler (node:inspector), started and stopped around one phase. */
export interface InProcessProfiler {
  /** Stops, writes `file` (a .cpuprofile) and returns its path. */
  stop(): Promise<string>;
}

export async function startProfiler(file: string): Promise<InProcessProfiler> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

/** Microseconds of the monotonic clock V8's profiles use for startTime and endTime (CLOCK_MONOTONIC, as process.hrtime). */
export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
