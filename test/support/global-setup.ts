import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '@jest/types';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../src/persistence/embedded-postgres';
import { migrate, openOrm } from '../../src/persistence/orm';
import { startDevServer } from '../../src/temporal/dev-server';
import { freePort } from '../../src/support/free-port';
import { temporalCliPath } from './binaries';
import { onSuiteEnd } from './suite-stops';
import { bundleCli, bundleWorker, commonSuiteSetup } from './suite-setup';
import { workerServerEnv } from './worker-servers';

/**
 * Durability off for the suite's own PostgreSQL: a crash loses nothing a test needs (the data folder is
 * thrown away), and every commit stops waiting on the disk.
 */
const TEST_POSTGRES_FLAGS = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];

/**
 * Starts the real servers the integration tests run against, once per run, with one isolated set per
 * jest worker (`maxWorkers`), so files running at once never see each other's rows, balances,
 * schedules or workflows:
 * - PostgreSQL: TEST_DATABASE_URL (a server of yours; its user needs CREATEDB), else an embedded server
 *   in a temporary folder. The migrations run once, into a template database; each worker gets a copy
 *   (`CREATE DATABASE … TEMPLATE`, milliseconds).
 * - Temporal: one dev server per worker, in memory, with the search attributes registered.
 * - The workflow bundle, the suite's key and the CLI bundle (test/support/suite-setup.ts).
 * Each test file finds its worker's servers through TEST_DATABASE_URL and TEST_TEMPORAL_ADDRESS, which
 * test/support/worker-servers.ts sets from JEST_WORKER_ID (and TEST_SECRETS_KEY).
 */
export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  const workers = Math.max(1, globalConfig.maxWorkers);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-test-'));
  onSuiteEnd(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  if (process.getuid?.() === 0) fs.chmodSync(dataDir, 0o777);
  // What the service writes under DATA_DIR by default (notification files, a generated secrets key)
  // goes to the suite's own folder, inherited by every jest worker and CLI child: never the
  // project's `.data`, which belongs to `npm start`.
  process.env.DATA_DIR = path.join(dataDir, 'service-data');

  const common = commonSuiteSetup();
  // TEST_SHARED_TEMPORAL=1: one dev server for every worker (measured against one each: docs/testing.md).
  const shared = process.env.TEST_SHARED_TEMPORAL === '1';
  const servers = Promise.all(
    Array.from({ length: shared ? 1 : workers }, async (_, i) => {
      const server = await startDevServer({ dataDir: path.join(dataDir, `temporal-${i + 1}`), cliPath: temporalCliPath(), port: await freePort(), persistent: false });
      onSuiteEnd(server.stop);
      return server.address;
    }),
  );
  const databases = workerDatabases(dataDir, workers);
  const [, addresses, urls, cli, worker] = await Promise.all([common, servers, databases, bundleCli(), bundleWorker()]);
  process.env.TEST_CLI_BUNDLE = cli;
  process.env.TEST_WORKER_BUNDLE = worker;

  for (let i = 0; i < workers; i++) Object.assign(process.env, workerServerEnv(i + 1, { databaseUrl: urls[i], temporalAddress: addresses[shared ? 0 : i] }));
}

/** One migrated database per worker: the migrations run once, into the template. */
async function workerDatabases(dataDir: string, workers: number): Promise<string[]> {
  let url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const pg = await startEmbeddedPostgres(dataDir, await freePort(), () => {}, TEST_POSTGRES_FLAGS);
    onSuiteEnd(pg.stop);
    url = pg.url;
  }
  const template = databaseUrl(url, `payments_test_${randomBytes(4).toString('hex')}`);
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${template.name}`);
    const orm = await openOrm(template.url, 2);
    try {
      await migrate(orm);
    } finally {
      await orm.close();
    }
    const copies = Array.from({ length: workers }, (_, i) => databaseUrl(url, `${template.name}_w${i + 1}`));
    // One at a time: PostgreSQL refuses a second copy of a template that is being copied.
    for (const copy of copies) await admin.query(`create database ${copy.name} template ${template.name}`);
    if (process.env.TEST_DATABASE_URL) {
      // A server of yours: leave it as it was found.
      onSuiteEnd(() => dropDatabases(url, [template.name, ...copies.map((c) => c.name)]));
    }
    return copies.map((c) => c.url);
  } finally {
    await admin.end();
  }
}

function databaseUrl(base: string, name: string): { name: string; url: string } {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

async function dropDatabases(url: string, names: string[]): Promise<void> {
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    for (const name of names.reverse()) await admin.query(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
}
