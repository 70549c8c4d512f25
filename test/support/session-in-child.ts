import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DefectName } from '../../src/simulation/defects';
import type { Plan, RunResult } from '../../src/simulation/types';

const ROOT = path.resolve(__dirname, '../..');

/**
 * Runs one simulation session in a process of its own (test/support/session-child.ts) and answers its
 * RunResult. Sessions run one after another in one jest process shared process-wide state: in
 * test/system/simulation-money-defects.test.ts a later session hung at a settle (an activity scheduled
 * and never started) after earlier ones, in CI as here, and the engine's replaced process Date then
 * failed every session after it. A process per session shares nothing. Killed after `timeoutMs`.
 */
export async function runSessionInChild(plan: Plan, options: { name: string; defect?: DefectName; timeoutMs?: number }): Promise<RunResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-session-'));
  const out = path.join(dir, 'result.json');
  const env: NodeJS.ProcessEnv = { ...process.env, SIM_SESSION_JOB: JSON.stringify({ plan, defect: options.defect, name: options.name, out }) };
  delete env.NODE_OPTIONS; // jest's --experimental-vm-modules is not wanted in the child
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/session-child.ts'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${options.name}: the session did not end within ${options.timeoutMs ?? 100_000} ms (killed)`));
      }, options.timeoutMs ?? 100_000);
      child.once('error', reject);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    if (code !== 0 || !fs.existsSync(out)) throw new Error(`${options.name}: the session's process exited ${code} without a result (its stderr is above)`);
    return JSON.parse(fs.readFileSync(out, 'utf8')) as RunResult;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
