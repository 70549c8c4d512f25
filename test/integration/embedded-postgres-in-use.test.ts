import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type RunningPostgres } from '../../src/persistence/embedded-postgres';
import { freePort } from '../../src/support/free-port';
import { StartupError } from '../../src/support/startup-error';

// Found trying it as a new user: with `npm start` running on EMBEDDED_PG_PORT=X, a CLI command without
// that setting tried to start a second server on the same data and printed "error: undefined".
let base: string;
let running: RunningPostgres | undefined;

beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-in-use-'));
  fs.chmodSync(base, 0o755);
});
afterAll(async () => {
  await running?.stop();
  fs.rmSync(base, { recursive: true, force: true });
});

test('a second embedded PostgreSQL on data already in use stops with one line naming the cause and the fix', async () => {
  const dataDir = path.join(base, 'data');
  running = await startEmbeddedPostgres(dataDir, await freePort());
  const failure = await startEmbeddedPostgres(dataDir, await freePort()).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(StartupError);
  expect((failure as Error).message).toMatch(/another PostgreSQL is running on that data .*EMBEDDED_PG_PORT/);
  expect((failure as Error).message).not.toContain('\n');
}, 120_000);
