import fs from 'node:fs';
import path from 'node:path';
import { topologyDir } from './paths';
import { SECRETS_FILE, type TopologySecrets } from './secrets';
import { isAlive, readTopologyState } from './state';

/**
 * While `npm run topology -- up` runs (DIR/topology.json with a live supervisor; DIR from
 * TOPOLOGY_DIR, else `<repo>/.topology`), `npm run cli` reaches its database and Temporal with no
 * settings: DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and SECRETS_KEY are filled in from the
 * topology, unless DATABASE_URL or TEMPORAL_ADDRESS is set (then the environment decides, as before).
 * Returns the folder used, or undefined when nothing was filled in.
 */
export function applyTopologyEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.DATABASE_URL || env.TEMPORAL_ADDRESS) return undefined;
  const dir = topologyDir(undefined, env);
  let state;
  try {
    state = readTopologyState(dir);
  } catch {
    return undefined;
  }
  if (!state || !isAlive(state.supervisor.pid)) return undefined;
  env.DATABASE_URL = state.database_url;
  env.TEMPORAL_ADDRESS = state.temporal_address;
  env.TEMPORAL_NAMESPACE ||= state.temporal_namespace;
  const secretsFile = path.join(dir, SECRETS_FILE);
  if (!env.SECRETS_KEY && fs.existsSync(secretsFile)) env.SECRETS_KEY = (JSON.parse(fs.readFileSync(secretsFile, 'utf8')) as TopologySecrets).secrets_key;
  return dir;
}
