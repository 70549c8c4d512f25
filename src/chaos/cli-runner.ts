import { execFile } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../topology/paths';
import { topologySecrets } from '../topology/secrets';
import { readTopologyState } from '../topology/state';

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The CLI's settings for the topology of `dir`: its database, Temporal and secrets key, given
 * explicitly (the same the CLI would find through TOPOLOGY_DIR; explicit, it works whichever way
 * the CLI finds a topology).
 */
function topologyCliEnv(dir: string): NodeJS.ProcessEnv {
  const state = readTopologyState(dir);
  if (!state) return { TOPOLOGY_DIR: dir };
  return {
    TOPOLOGY_DIR: dir,
    DATABASE_URL: state.database_url,
    TEMPORAL_ADDRESS: state.temporal_address,
    TEMPORAL_NAMESPACE: state.temporal_namespace,
    TEMPORAL_UI_URL: state.public.temporal_ui,
    SECRETS_KEY: topologySecrets(dir).secrets_key,
  };
}

/** `npm run cli -- …` run against the topology of `dir`, as an operator runs it while it is up. */
export function cliOutcome(dir: string, args: string[], timeoutMs = 120_000, extraEnv: NodeJS.ProcessEnv = {}): Promise<CliOutcome> {
  const root = projectRoot();
  const env = { ...process.env, ...topologyCliEnv(dir), ...extraEnv };
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(root, 'src/cli.ts'), ...args], { cwd: root, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The CLI's JSON answer; rejects with its stderr when it exits non-zero. */
export async function runCli(dir: string, args: string[], timeoutMs = 120_000, extraEnv: NodeJS.ProcessEnv = {}): Promise<unknown> {
  const { code, stdout, stderr } = await cliOutcome(dir, args, timeoutMs, extraEnv);
  if (code !== 0) throw new Error(`cli ${args.join(' ')} exited ${code}: ${stderr.trim().slice(0, 1000)} ${stdout.trim().slice(0, 1000)}`);
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`cli ${args.join(' ')}: not JSON: ${stdout.slice(0, 500)}`);
  }
}
