import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { openOrm, WORKER_DB_TIMEOUTS } from '../../src/persistence/orm';
import { freePort } from '../../src/support/free-port';
import { createLogger } from '../../src/support/logger';
import { parseKeyring } from '../../src/support/secret-box';
import { connectTemporal } from '../../src/temporal/connection';
import { startDevServer } from '../../src/temporal/dev-server';
import { createPayloadCodec } from '../../src/temporal/payload-codec';
import { startOutboxRelay } from '../../src/webhooks/outbox-relay';

/** What the running webhook outbox relay did against a real Temporal dev server for a while. */
export interface DrainRun {
  seconds: number;
  events: number;
  eventsPerSecond: number;
  /** Deliveries per merchant-environment scope written meanwhile: fewest and most among those with a backlog. */
  perScopeMin: number;
  perScopeMax: number;
}

/**
 * Runs the worker's webhook outbox relay (startOutboxRelay, with the worker's database timeouts: 8 s
 * statements) for `seconds` against `databaseUrl`, starting its workflows on a Temporal dev server of
 * its own on a task queue nobody polls (the starts are real; no delivery is sent). Counts the events it
 * dispatched (one delivery each: every seeded merchant has one endpoint per environment).
 */
export async function drainWithRelay(databaseUrl: string, seconds: number, log: (line: string) => void): Promise<DrainRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-backlog-temporal-'));
  const server = await startDevServer({ dataDir, port: await freePort(), persistent: false, ...(process.env.TEMPORAL_CLI_PATH ? { cliPath: process.env.TEMPORAL_CLI_PATH } : {}) });
  const temporal = await connectTemporal(server.address, 'default', createPayloadCodec(parseKeyring(randomBytes(32).toString('base64'))));
  const orm = await openOrm(databaseUrl, { poolMax: 10, timeouts: WORKER_DB_TIMEOUTS });
  const conn = orm.em.getConnection();
  const before = Number((await conn.execute<{ n: string }[]>(`select count(*) as n from webhook_deliveries`))[0].n);
  const since = (await conn.execute<{ t: Date }[]>(`select now() as t`))[0].t;
  try {
    log(`relay running for ${seconds} s (Temporal dev server ${server.address})`);
    const started = Date.now();
    const relay = startOutboxRelay(
      { orm, client: temporal.client, taskQueue: `backlog-unpolled-${randomBytes(4).toString('hex')}`, retryScheduleMs: [1000], log: createLogger('silent'), listenUrl: null },
      50,
    );
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    await relay.stop();
    const elapsed = (Date.now() - started) / 1000;
    const after = Number((await conn.execute<{ n: string }[]>(`select count(*) as n from webhook_deliveries`))[0].n);
    const spread = await conn.execute<{ lo: number; hi: number }[]>(
      `select coalesce(min(n), 0)::int as lo, coalesce(max(n), 0)::int as hi from (
         select s.merchant_id, s.environment, count(d.id) as n
         from (select distinct merchant_id, environment from webhook_endpoints where merchant_id like 'mer_bl%') s
         left join webhook_deliveries d on d.merchant_id = s.merchant_id and d.environment = s.environment and d.created_at >= ?
         group by s.merchant_id, s.environment) t`,
      [since],
    );
    return { seconds: elapsed, events: after - before, eventsPerSecond: (after - before) / elapsed, perScopeMin: spread[0].lo, perScopeMax: spread[0].hi };
  } finally {
    await orm.close();
    await temporal.connection.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
