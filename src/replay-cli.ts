import { parseArgs } from 'node:util';
import { Worker, type ReplayResult } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { loadConfig } from './config';
import { parseDuration } from './domain/webhook-retry';
import { requireProductionSettings, temporalAddressOf } from './runtime/production-settings';
import { payloadCodecFor } from './runtime/secrets-key';
import { connectTemporal } from './temporal/connection';
import { codecDataConverter } from './temporal/payload-codec';
import { installRuntime, workflowBundle } from '../workers/create-worker';
import * as workflows from '../workflows';
import { PATCH_IDS } from '../workflows/patches';

const USAGE = `usage: npm run replay -- --workflow-id ID | --query 'a Temporal list query' | --since 7d [--limit N]
Replays server histories of every workflow type against the current workflow code (through the
payload codec): one line a history, then the open runs carrying each patch; exit 1 on a
determinism violation. --since 7d (running, or closed within 7 days) is the release gate.`;

class UsageError extends Error {}

const KNOWN_TYPES = new Set(Object.keys(workflows));

/** The list query of the arguments. */
export function replayQuery(values: { 'workflow-id'?: string; query?: string; since?: string }, now = Date.now()): string {
  const given = ['workflow-id', 'query', 'since'].filter((k) => values[k as keyof typeof values] !== undefined);
  if (given.length !== 1) throw new UsageError('give exactly one of --workflow-id, --query, --since');
  if (values['workflow-id'] !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(values['workflow-id'])) throw new UsageError('--workflow-id must be a workflow id (letters, digits, _ and -)');
    return `WorkflowId = '${values['workflow-id']}'`;
  }
  if (values.query !== undefined) {
    if (!values.query.trim()) throw new UsageError('--query must not be empty');
    return values.query;
  }
  let ms: number;
  try {
    ms = parseDuration(values.since!);
  } catch {
    throw new UsageError('--since must be a duration such as 7d, 24h or 30m');
  }
  return `ExecutionStatus = 'Running' OR CloseTime >= '${new Date(now - ms).toISOString()}'`;
}

interface Listed {
  workflowId: string;
  runId: string;
  type: string;
}

async function* histories(client: Client, query: string, limit: number, skipped: Listed[], listed: Map<string, Listed>) {
  let n = 0;
  for await (const wf of client.workflow.list({ query })) {
    const entry = { workflowId: wf.workflowId, runId: wf.runId, type: wf.type };
    if (!KNOWN_TYPES.has(wf.type)) {
      skipped.push(entry);
      continue;
    }
    if (n++ >= limit) break;
    listed.set(wf.runId, entry);
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    yield { workflowId: wf.workflowId, history };
  }
}

/** One line: what diverged (the SDK names the event), never a stack. */
function failureLine(result: ReplayResult): string {
  const message = result.error instanceof Error ? result.error.message : String(result.error);
  return message.split('\n')[0].slice(0, 500);
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { 'workflow-id': { type: 'string' }, query: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } } });
  const query = replayQuery(values);
  const limit = values.limit === undefined ? 10_000 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
  const config = loadConfig();
  requireProductionSettings(config, { temporal: true });
  installRuntime(); // the SDK logs at TEMPORAL_LOG_LEVEL (WARN): the replay worker's state changes stay out of the output
  const codec = payloadCodecFor(config);
  const temporal = await connectTemporal(temporalAddressOf(config), config.temporalNamespace, codec);
  const out = (line: string) => process.stdout.write(line + '\n');
  let failed = 0;
  let replayed = 0;
  try {
    const skipped: Listed[] = [];
    const listed = new Map<string, Listed>();
    const options = { workflowBundle: await workflowBundle(), dataConverter: codecDataConverter(codec), replayName: 'replay-gate' };
    for await (const result of Worker.runReplayHistories(options, histories(temporal.client, query, limit, skipped, listed))) {
      replayed++;
      const type = listed.get(result.runId)?.type ?? [...listed.values()].find((l) => l.workflowId === result.workflowId)?.type ?? '?';
      if (result.error) {
        failed++;
        out(`FAIL  ${type} ${result.workflowId} ${result.runId}: ${failureLine(result)}`);
      } else {
        out(`ok    ${type} ${result.workflowId} ${result.runId}`);
      }
    }
    for (const s of skipped) out(`skip  ${s.type} ${s.workflowId} ${s.runId}: not a workflow type of this code`);
    for (const id of PATCH_IDS) {
      const { count } = await temporal.client.workflow.count(`TemporalChangeVersion = '${id}' AND ExecutionStatus = 'Running'`);
      out(`patch ${id}: ${count} open run(s) carry it`);
    }
    out(`${replayed} replayed, ${failed} failed${failed ? ': a determinism violation (the lines above name the workflow and the event)' : ''}`);
  } finally {
    await temporal.connection.close();
  }
  return failed > 0 ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      if (error instanceof UsageError) process.stderr.write(USAGE + '\n');
      process.exit(2);
    },
  );
}
