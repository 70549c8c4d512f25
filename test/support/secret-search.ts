import { Writable } from 'node:stream';
import pino from 'pino';
import type { Harness } from './harness';
import { decodedJson } from './payload-codec';

/**
 * Where a secret could leak, searched (issue 45, live cards): every row of every table of the
 * database as text, workflow histories with every payload decoded, and log lines captured.
 */

/** A logger at debug level whose lines are kept in `lines` (as the API's logger would write them). */
export function capturingLogger(lines: string[]): pino.Logger {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return pino({ level: 'debug' }, sink);
}

/** Every row of every table in the public schema, each as `table: row text`. */
export async function everyRowAsText(h: Harness): Promise<string[]> {
  const db = h.orm.em.getConnection();
  const tables = await db.execute<Array<{ table_name: string }>>(`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`);
  const out: string[] = [];
  for (const { table_name } of tables) {
    const rows = await db.execute<Array<{ row: string }>>(`select t::text as row from "${table_name}" t`);
    for (const r of rows) out.push(`${table_name}: ${r.row}`);
  }
  return out;
}

/** A workflow's history (all its runs' events as the server keeps them), every payload decoded, as text. */
export async function decodedHistoryText(h: Harness, workflowId: string): Promise<string> {
  const history = await h.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const parts: string[] = [JSON.stringify(history)];
  await walk(history, async (payload) => {
    try {
      parts.push(JSON.stringify(await decodedJson(payload)));
    } catch {
      parts.push(Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'));
    }
  });
  return parts.join('\n');
}

type Payload = Parameters<typeof decodedJson>[0];

async function walk(value: unknown, visit: (payload: Payload) => Promise<void>): Promise<void> {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) await walk(item, visit);
    return;
  }
  const record = value as Record<string, unknown>;
  if ('metadata' in record && 'data' in record && record.data != null) await visit(record as unknown as Payload);
  for (const child of Object.values(record)) await walk(child, visit);
}

/** The places in `texts` where `needle` appears as a number of its own (no digit, hex letter or dash beside it). */
export function standaloneHits(texts: readonly string[], needle: string): string[] {
  const pattern = new RegExp(`(^|[^0-9a-fA-F-])${needle}([^0-9a-fA-F-]|$)`);
  return texts.filter((text) => pattern.test(text)).map((text) => text.slice(0, 200));
}
