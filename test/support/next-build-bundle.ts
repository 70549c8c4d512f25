import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

/**
 * The workflow bundle of a "next build" (test/support/next-build-workflows.ts: a payout workflow that
 * differs from this code's), written to a temporary file a worker child loads through
 * WORKFLOW_BUNDLE_PATH. `remove()` deletes it.
 */
export interface NextBuildBundle {
  path: string;
  remove(): void;
}

export async function bundleNextBuild(): Promise<NextBuildBundle> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-next-build-'));
  const file = path.join(dir, 'workflows.js');
  const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;
  const { code } = await bundleWorkflowCode({ workflowsPath: path.resolve(__dirname, 'next-build-workflows.ts'), logger: quiet });
  fs.writeFileSync(file, code);
  return { path: file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
