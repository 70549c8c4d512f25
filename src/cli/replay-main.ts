import { parseArgs } from 'node:util';
import { Worker, type ReplayResult } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../config';
import { parseDuration } from '../domain/webhook-retry';
import { requireProductionSettings, temporalAddressOf } from '../runtime/production-settings';
import { payloadCodecFor } from '../runtime/secrets-key';
import { connectTemporal } from '../temporal/connection';
import { codecDataConverter } from '../temporal/payload-codec';
import { installRuntime, workflowBundle } from '../../workers/workflow-bundle';
import * as workflows from '../../workflows';
import { PATCH_IDS } from '../../workflows/patches';

/** Histories replayed at most, unless --limit says otherwise. */
export const DEFAULT_LIMIT = 10_000;

const USAGE = `usage: npm run replay -- --workflow-id ID | --query 'a Temporal list query' | --since 7d [--limit N] [--allow-partial]
Replays server histories of every workflow type against the current workflow code (through the
payload codec): one line a history, then the open runs carrying each patch. Exit 1 on a determinism
violation, and whenever the replay proves nothing: no history matched, a history of a workflow type
this code lacks, or --limit (default ${DEFAULT_LIMIT}) cut the replay off (--allow-partial accepts
that, saying so). --since 7d (running, or closed within 7 days) is the release gate.`;

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
  running: boolean;
}

/** What the listing found besides the histories it yields. */
interface Listing {
  /** Runs the query listed (up to the cut-off). */
  seen: number;
  /** Runs of a workflow type this code lacks: never replayed. */
  unknown: Listed[];
  /** Runs replayed, by run id. */
  listed: Map<string, Listed>;
  /** A run of a known type was left out: --limit was reached. */
  cutOff: boolean;
}

async function* histories(client: Client, query: string, limit: number, found: Listing) {
  let n = 0;
  for await (const wf of client.workflow.list({ query })) {
    found.seen++;
    const entry = { workflowId: wf.workflowId, runId: wf.runId, type: wf.type, running: wf.status.name === 'RUNNING' };
    if (!KNOWN_TYPES.has(wf.type)) {
      found.unknown.push(entry);
      continue;
    }
    if (n++ >= limit) {
      found.cutOff = true;
      break;
    }
    found.listed.set(wf.runId, entry);
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    yield { workflowId: wf.workflowId, history };
  }
}

/** The types a run of which this code cannot replay: `typeA (2, 1 running), typeB (1)`. */
export function unknownTypesLine(unknown: ReadonlyArray<{ type: string; running: boolean }>): string {
  const byType = new Map<string, { n: number; running: number }>();
  for (const u of unknown) {
    const t = byType.get(u.type) ?? { n: 0, running: 0 };
    byType.set(u.type, { n: t.n + 1, running: t.running + (u.running ? 1 : 0) });
  }
  return [...byType.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, t]) => `${type} (${t.n}${t.running ? `, ${t.running} running` : ''})`)
    .join(', ');
}

/** One line: what diverged (the SDK names the event), never a stack. */
function failureLine(result: ReplayResult): string {
  const message = result.error instanceof Error ? result.error.message : String(result.error);
  return message.split('\n')[0].slice(0, 500);
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { 'workflow-id': { type: 'string' }, query: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' }, 'allow-partial': { type: 'boolean' } },
  });
  const query = replayQuery(values);
  const limit = values.limit === undefined ? DEFAULT_LIMIT : /^\d+$/.test(values.limit) ? Number(values.limit) : NaN;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
  const allowPartial = values['allow-partial'] === true;
  const config = loadConfig();
  requireProductionSettings(config, { temporal: true });
  installRuntime(); // the SDK logs at TEMPORAL_LOG_LEVEL (WARN): the replay worker's state changes stay out of the output
  const codec = payloadCodecFor(config);
  const temporal = await connectTemporal(temporalAddressOf(config), config.temporalNamespace, codec);
  const out = (line: string) => process.stdout.write(line + '\n');
  let failed = 0;
  let replayed = 0;
  /** Why the replay does not prove the code safe (nothing replayed, runs left out): each reason fails the gate. */
  const nothingProved: string[] = [];
  try {
    const found: Listing = { seen: 0, unknown: [], listed: new Map(), cutOff: false };
    const listed = found.listed;
    const options = { workflowBundle: await workflowBundle(), dataConverter: codecDataConverter(codec), replayName: 'replay-gate' };
    for await (const result of Worker.runReplayHistories(options, histories(temporal.client, query, limit, found))) {
      replayed++;
      const type = listed.get(result.runId)?.type ?? [...listed.values()].find((l) => l.workflowId === result.workflowId)?.type ?? '?';
      if (result.error) {
        failed++;
        out(`FAIL  ${type} ${result.workflowId} ${result.runId}: ${failureLine(result)}`);
      } else {
        out(`ok    ${type} ${result.workflowId} ${result.runId}`);
      }
    }
    for (const s of found.unknown) out(`skip  ${s.type} ${s.workflowId} ${s.runId}: not a workflow type of this code${s.running ? ' (running)' : ''}`);
    for (const id of PATCH_IDS) {
      const { count } = await temporal.client.workflow.count(`TemporalChangeVersion = '${id}' AND ExecutionStatus = 'Running'`);
      out(`patch ${id}: ${count} open run(s) carry it`);
    }
    if (found.seen === 0) {
      nothingProved.push('no history matched');
      out(`FAIL  no history matched the query on namespace ${config.temporalNamespace} at ${temporalAddressOf(config)}: nothing was replayed (a wrong namespace, address or query?): ${query}`);
    }
    if (found.unknown.length > 0) {
      nothingProved.push('workflow types this code lacks');
      out(`FAIL  ${found.unknown.length} history(ies) of workflow types this code lacks, not replayed: ${unknownTypesLine(found.unknown)}`);
    }
    if (found.cutOff) {
      const { count: matching } = await temporal.client.workflow.count(query);
      const what = `--limit ${limit} cut the replay off: ${replayed} of the ${matching} matching histories replayed`;
      if (allowPartial) out(`PARTIAL ${what}; accepted by --allow-partial`);
      else {
        nothingProved.push(`cut off by --limit ${limit}`);
        out(`FAIL  ${what} (raise --limit, or accept a partial replay with --allow-partial)`);
      }
    }
    const violation = failed ? ': a determinism violation (the lines above name the workflow and the event)' : '';
    const gate = nothingProved.length ? `${violation ? ';' : ':'} the gate fails: ${nothingProved.join('; ')}` : '';
    out(`${replayed} replayed, ${failed} failed${violation}${gate}`);
  } finally {
    await temporal.connection.close();
  }
  return failed > 0 || nothingProved.length > 0 ? 1 : 0;
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
