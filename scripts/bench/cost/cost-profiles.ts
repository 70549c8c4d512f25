import fs from 'node:fs';
import path from 'node:path';
import { bundleModules, mapBundleFrames, readProfile, renderProfileSummary, summarizeProfile } from './cpu-profile-summary';

/** A worker thread's profile with less CPU than this in the window is listed, not summarised. */
const QUIET_MS = 20;

export interface ProfileSet {
  dir: string;
  variant: string;
  /** The worker process's --cpu-prof-dir (its main thread and each worker thread write a file at exit); none for the topology. */
  workerDir?: string;
  /** The workflow bundle the worker ran (WORKFLOW_BUNDLE_PATH): its threads' frames are named by module. */
  bundle?: string;
  /** The charge phase on the monotonic clock (µs), so each whole-run profile is cut to it. */
  chargeWindowUs?: [number, number];
  /** CPU-ms per charge from /proc over the charge phase: the bench process's and the worker process's (all its threads). */
  cpuMsPerCharge: { bench: number; worker: number };
}

/**
 * Markdown summaries of the cost mode's profiles: the bench process's (the charge phase only) and
 * the worker process's files, each cut to the charge phase (V8's startTime is on the same monotonic
 * clock as process.hrtime; a profile that does not cover the window is shown whole, and says so).
 */
export function collectProfiles(set: ProfileSet): string[] {
  const out: string[] = [];
  const bench = path.join(set.dir, `${set.variant}-bench-charge.cpuprofile`);
  if (fs.existsSync(bench)) {
    const summary = summarizeProfile(readProfile(bench), bench);
    out.push(
      `Bench process (${set.variant === 'topology' ? 'load generator and receiver' : 'the API, load generator and receiver'}), the charge phase; est. CPU-ms = share of not idle × its /proc CPU per charge (${set.cpuMsPerCharge.bench.toFixed(2)} ms):`,
      '',
      ...renderProfileSummary(summary, { factor: set.cpuMsPerCharge.bench / summary.busyMs, label: 'charge' }),
    );
  }
  if (!set.workerDir) {
    out.push(`Worker processes: not profiled in \`${set.variant}\` (the topology's workers are the supervisor's pieces; NODE_OPTIONS there would profile every piece).`, '');
    return out;
  }
  const files = fs.existsSync(set.workerDir) ? fs.readdirSync(set.workerDir).filter((f) => f.endsWith('.cpuprofile')).sort() : [];
  if (files.length === 0) out.push(`Worker process: no .cpuprofile in ${set.workerDir} (the worker writes it when it exits cleanly).`, '');
  const modules = set.bundle && fs.existsSync(set.bundle) ? bundleModules(fs.readFileSync(set.bundle, 'utf8')) : [];
  const quiet: string[] = [];
  const shown: Array<{ f: string; note: string; summary: ReturnType<typeof summarizeProfile> }> = [];
  for (const f of files) {
    const file = path.join(set.workerDir, f);
    const profile = mapBundleFrames(readProfile(file), modules);
    let from = 0;
    let to = Infinity;
    let note = 'whole profile';
    if (set.chargeWindowUs) {
      const [a, b] = set.chargeWindowUs;
      if (a >= profile.startTime && a <= profile.endTime) {
        from = (a - profile.startTime) / 1e6;
        to = (b - profile.startTime) / 1e6;
        note = 'cut to the charge phase';
      } else note = 'whole profile: the charge phase is outside its time range';
    }
    const summary = summarizeProfile(profile, file, from, to);
    if (summary.busyMs < QUIET_MS) quiet.push(`${f} (${summary.busyMs.toFixed(1)} ms)`);
    else shown.push({ f, note, summary });
  }
  // The process's CPU shared out over its threads by their not-idle time.
  const busy = shown.reduce((sum, x) => sum + x.summary.busyMs, 0);
  const factor = set.cpuMsPerCharge.worker / busy;
  if (shown.length) out.push(`Worker process: ${shown.length} threads' profiles (the first file is the main thread, the others worker threads, which run the workflows); est. CPU-ms = ms × the process's /proc CPU per charge (${set.cpuMsPerCharge.worker.toFixed(2)} ms) ÷ the not-idle ms of all its threads (${busy.toFixed(0)} ms).`, '');
  for (const { f, note, summary } of shown) out.push(`Worker process, ${f} (${note}):`, '', ...renderProfileSummary(summary, { factor, label: 'charge' }));
  if (quiet.length) out.push(`Worker threads with under ${QUIET_MS} ms not idle in the window, not shown: ${quiet.join(', ')}.`, '');
  return out;
}
