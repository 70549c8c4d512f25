/**
 * promtool for the monitoring tests (test/unit/monitoring-promtool.test.ts, monitoring-alert-rules.test.ts,
 * monitoring-build-alerts.test.ts and the alert check of test/integration/worker-versioning-retire.test.ts).
 * `npm install` builds it from its Go module (the postinstall hook runs scripts/install-promtool.sh,
 * pinned; `.ci/run` runs it too and sets PROMTOOL_PATH). These tests never skip: where promtool is
 * missing they fail, with one line giving the command that installs it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './monitoring-queries';

export const PROMTOOL = process.env.PROMTOOL_PATH || path.join(ROOT, '.cache/promtool/bin/promtool');

/** `bin` when it is an executable; else throws one line naming the install command. */
export function requirePromtool(bin = PROMTOOL): string {
  try {
    fs.accessSync(bin, fs.constants.X_OK);
  } catch {
    throw new Error(
      `promtool is missing (no executable at ${bin}): run \`bash scripts/install-promtool.sh\` ` +
        '(Go 1.26.7+; npm install runs it, and only warns when it cannot), or set PROMTOOL_PATH to a promtool binary',
    );
  }
  return bin;
}

/** `promtool <args>`: its exit code and output (stdout then stderr). */
export async function promtool(args: string[]): Promise<{ code: number; output: string }> {
  const bin = requirePromtool();
  try {
    const { stdout, stderr } = await promisify(execFile)(bin, args, { timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string; message: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
