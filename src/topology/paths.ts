import fs from 'node:fs';
import path from 'node:path';

/** The repository root (the nearest package.json above this file). */
export function projectRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

/** The topology's folder: the `--dir` given, else TOPOLOGY_DIR, else `<repo>/.topology`. */
export function topologyDir(given?: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(given || env.TOPOLOGY_DIR || path.join(projectRoot(), '.topology'));
}

/** Where the built Temporal server, its SQL tool and the UI server live (scripts/install-temporal-server.sh). */
export function temporalServerBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.TEMPORAL_SERVER_INSTALL_DIR || path.join(projectRoot(), '.cache', 'temporal-server'), 'bin');
}
