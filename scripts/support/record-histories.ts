/**
 * What every history recorder (scripts/record-*histories.ts) shares: take the scenario names from the
 * command line (none: every scenario; an unknown one: refuse before anything runs), start the
 * recorder's time-skipping test environment, run each scenario, write its history as pretty JSON
 * (the format of `temporal workflow show --output json`), log it, close the environment.
 */
import fs from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';

export type History = temporal.api.history.v1.IHistory;

/** A recorded history and the name of its file in the output directory. */
export interface Recording {
  fileName: string;
  history: History;
}

interface Closable {
  close(): Promise<void>;
}

interface RecordOptions<Env extends Closable, R> {
  /** Where the history files go (created if missing). */
  outDir: string;
  scenarios: Record<string, (env: Env) => Promise<R>>;
  startEnv: () => Promise<Env>;
  /** The scenarios to record; default: the command line's arguments, or every scenario if none. */
  names?: string[];
}

interface RecordAsOptions<Env extends Closable, R> extends RecordOptions<Env, R> {
  /** The file a scenario's result is written to, and its history. */
  recording: (scenario: string, result: R) => Recording;
}

/** Writes `history` to `file` as pretty JSON with a final newline. */
export function writeHistory(file: string, history: History): void {
  fs.writeFileSync(file, JSON.stringify(JSON.parse(historyToJSON(history)), null, 2) + '\n');
}

/** Records each wanted scenario (each returns its history) as `<outDir>/<scenario>.json`. */
export function recordScenarios<Env extends Closable>(options: RecordOptions<Env, History>): Promise<void>;
/** Records each wanted scenario where `recording` says. */
export function recordScenarios<Env extends Closable, R>(options: RecordAsOptions<Env, R>): Promise<void>;
export async function recordScenarios<Env extends Closable, R>(options: RecordOptions<Env, R> & { recording?: (scenario: string, result: R) => Recording }): Promise<void> {
  const { outDir, scenarios, startEnv, names: given = process.argv.slice(2) } = options;
  const recording = options.recording ?? ((scenario: string, result: R): Recording => ({ fileName: `${scenario}.json`, history: result as History }));
  const unknown = given.filter((name) => !(name in scenarios));
  if (unknown.length > 0) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`);
  const names = given.length > 0 ? given : Object.keys(scenarios);
  fs.mkdirSync(outDir, { recursive: true });
  const env = await startEnv();
  try {
    for (const name of names) {
      const { fileName, history } = recording(name, await scenarios[name](env));
      const file = path.join(outDir, fileName);
      writeHistory(file, history);
      console.log(`wrote ${path.relative(process.cwd(), file)} (${history.events?.length ?? 0} events)`);
    }
  } finally {
    await env.close();
  }
}

/** A recorder script's whole run: on failure, the error on stderr and exit code 1. */
export function runRecorder(record: () => Promise<void>): void {
  record().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
