import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `src/cli.ts` as its own process against the suite's PostgreSQL and Temporal, on `taskQueue`. */
export function runCli(taskQueue: string, ...args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  Object.assign(env, {
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: taskQueue,
    SECRETS_KEY: process.env.TEST_SECRETS_KEY,
  });
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: number | string }).code as number | null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}
