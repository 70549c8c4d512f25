/**
 * promtool for the monitoring tests (test/unit/monitoring-promtool.test.ts, monitoring-alert-rules.test.ts).
 * It is built from its Go module by scripts/install-promtool.sh (pinned; `.ci/run` runs it before
 * `npm test` and sets PROMTOOL_PATH). Where promtool is required (PROMTOOL_PATH set, or CI true) a
 * missing one fails the test, saying how to install it; elsewhere the tests run when
 * .cache/promtool/bin/promtool is there and are otherwise reported as skipped, saying why.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './monitoring-queries';

export const PROMTOOL = process.env.PROMTOOL_PATH || path.join(ROOT, '.cache/promtool/bin/promtool');
/** PROMTOOL_PATH set or CI=true: promtool must be there. */
const REQUIRED = !!process.env.PROMTOOL_PATH || process.env.CI === 'true';

function installed(): boolean {
  try {
    fs.accessSync(PROMTOOL, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `test` where promtool is installed or required; elsewhere `test.skip` (the summary counts it), its name saying why. */
export const RUN_PROMTOOL = REQUIRED || installed();
export const promtoolTest = RUN_PROMTOOL ? test : test.skip;

export function requirePromtool(): string {
  try {
    fs.accessSync(PROMTOOL, fs.constants.X_OK);
  } catch {
    throw new Error(
      `promtool is missing: no executable at ${PROMTOOL}. Install the pinned version with \`bash scripts/install-promtool.sh\` ` +
        '(needs Go 1.26.7+; builds into .cache/promtool/bin, a few minutes the first time), or set PROMTOOL_PATH to a promtool binary.',
    );
  }
  return PROMTOOL;
}

/** `promtool <args>`: its exit code and output (stdout then stderr). */
export async function promtool(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(requirePromtool(), args, { timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string; message: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
