import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** The time-skipping test server: TEMPORAL_TEST_SERVER_PATH, else what scripts/install-temporal.sh installs (npm install runs it). */
export function testServerBinary(env: NodeJS.ProcessEnv = process.env, root = ROOT): { path: string } | { missing: string } {
  const candidates = [env.TEMPORAL_TEST_SERVER_PATH, path.join(root, '.cache/temporal/bin/temporal-test-server')].filter((c): c is string => !!c);
  const found = candidates.find((c) => fs.existsSync(c));
  if (found) return { path: found };
  return { missing: `the Temporal test server is missing (looked at ${candidates.join(', ')}): install it with "bash scripts/install-temporal.sh" or set TEMPORAL_TEST_SERVER_PATH` };
}
