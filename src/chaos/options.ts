import { parseArgs } from 'node:util';
import { randomInt } from 'node:crypto';

/** `npm run chaos -- [--short] [--seed S] [--duration D] [--temporal server|dev] [--dir DIR]`. */
export interface ChaosOptions {
  short: boolean;
  seed: number;
  /** How long the load runs while faults are injected, in seconds. */
  durationS: number;
  temporal: 'server' | 'dev';
  /** The topology's folder (DIR/topology.json); undefined: the topology's own default. */
  dir: string | undefined;
  /** Start the topology when none is up (and stop it after), rather than refusing. */
  up: boolean;
  /** Keep the topology running after the run (it was started by this run). */
  keep: boolean;
}

export class ChaosUsageError extends Error {}

/** A duration such as `90`, `90s`, `15m` or `1h`, in seconds. */
export function parseDurationSeconds(text: string): number {
  const m = /^([0-9]{1,6})(s|m|h)?$/.exec(text.trim());
  if (!m) throw new ChaosUsageError(`--duration must be a whole number of seconds or minutes (e.g. 90s, 15m, 1h), not "${text}"`);
  const n = Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
  if (n < 10) throw new ChaosUsageError('--duration must be at least 10 seconds');
  return n;
}

/** The default durations: the short mode's load (one fault of each kind) and a full run's. */
export const SHORT_DURATION_S = 60;
export const FULL_DURATION_S = 15 * 60;

export function parseChaosOptions(argv: string[]): ChaosOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      short: { type: 'boolean', default: false },
      seed: { type: 'string' },
      duration: { type: 'string' },
      temporal: { type: 'string' },
      dir: { type: 'string' },
      up: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  let seed: number;
  if (values.seed === undefined) seed = randomInt(1, 2 ** 31 - 1);
  else if (/^[0-9]{1,10}$/.test(values.seed) && Number(values.seed) < 2 ** 31) seed = Number(values.seed);
  else throw new ChaosUsageError(`--seed must be a whole number from 0 to 2147483647, not "${values.seed}"`);
  const temporal = values.temporal ?? (values.short ? 'dev' : 'server');
  if (temporal !== 'server' && temporal !== 'dev') throw new ChaosUsageError(`--temporal must be server or dev, not "${temporal}"`);
  const durationS = values.duration === undefined ? (values.short ? SHORT_DURATION_S : FULL_DURATION_S) : parseDurationSeconds(values.duration);
  return { short: values.short === true, seed, durationS, temporal, dir: values.dir ?? process.env.TOPOLOGY_DIR, up: values.up === true, keep: values.keep === true };
}
