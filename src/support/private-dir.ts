import fs from 'node:fs';

/**
 * The mode of DATA_DIR (`.data/`): 0700, only the service's account may enter it (the secrets key,
 * the demo merchant's keys, PostgreSQL's and Temporal's files live there). Started by root, the
 * embedded PostgreSQL runs as the `postgres` account, which must pass through it to reach its own
 * 0700 directory inside: then 0711 (others may pass, but never list or read anything).
 */
export function privateDirMode(uid: number | undefined = process.getuid?.()): number {
  return uid === 0 ? 0o711 : 0o700;
}

export interface PrivateDirResult {
  created: boolean;
  /** The mode it had when it was looser than wanted, before it was tightened. */
  tightenedFrom?: number;
}

const announceOnStderr = (message: string) => process.stderr.write(`${message}\n`);

/**
 * Creates `dir` (and its parents) with privateDirMode(), or tightens an existing one whose mode
 * grants more than that (group or others may read, write or list it), saying so through `announce`
 * (stderr by default). A stricter mode is left alone.
 */
export function ensurePrivateDir(dir: string, announce: (message: string) => void = announceOnStderr, mode: number = privateDirMode()): PrivateDirResult {
  const created = fs.mkdirSync(dir, { recursive: true, mode }) !== undefined;
  const current = fs.statSync(dir).mode & 0o777;
  if (created && current === mode) return { created };
  if ((current & ~mode) === 0) return { created };
  fs.chmodSync(dir, current & mode);
  if (!created) {
    announce(`DATA_DIR ${dir} had mode 0${current.toString(8)} (readable by other accounts): tightened to 0${(current & mode).toString(8)}.`);
    return { created, tightenedFrom: current };
  }
  return { created };
}
