import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

/** What the in-flight bench samples every few seconds from outside the processes. */
export interface InflightSample {
  atS: number;
  /** Resident set of the worker process(es), MiB (summed over the topology's two workers). */
  workerRssMiB: number;
  /** The largest of them alone (the goal is per worker process). */
  largestWorkerRssMiB: number;
  /** The SDK's sticky cache, summed over the workers' Prometheus listeners. */
  stickySize: number;
  stickyEvictions: number;
  stickyHits: number;
  stickyMisses: number;
  /** Bytes on disk under each store's folder or files. */
  temporalDiskMiB: number;
  postgresDiskMiB: number;
  load1: number;
}

export interface SamplerTargets {
  workerPids(): number[];
  metricsPorts: number[];
  disk: { temporal: string[]; postgres: string[] };
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Sum of `du -sb` over paths that exist (PostgreSQL's folders may belong to the postgres account: du runs as this user, as root when the bench does). */
function diskMiB(paths: string[]): number {
  const present = paths.filter((p) => fs.existsSync(p));
  if (present.length === 0) return NaN;
  try {
    const out = execFileSync('du', ['-sb', ...present], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out.split('\n').filter(Boolean).reduce((sum, line) => sum + Number(line.split('\t')[0]), 0) / 1024 / 1024;
  } catch (error) {
    // du exits 1 when a file vanished mid-walk (a WAL segment recycled); its partial output is still the figure.
    const out = (error as { stdout?: string }).stdout ?? '';
    const lines = out.split('\n').filter(Boolean);
    return lines.length ? lines.reduce((sum, line) => sum + Number(line.split('\t')[0]), 0) / 1024 / 1024 : NaN;
  }
}

/** The sum of one metric's samples (every label set) in a Prometheus text page. */
export function metricSum(page: string, name: string): number {
  let sum = 0;
  let seen = false;
  for (const line of page.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!(rest.startsWith('{') || rest.startsWith(' ') || rest.startsWith('_total'))) continue;
    const value = Number(line.trim().split(/\s+/).at(-1));
    if (Number.isFinite(value)) {
      sum += value;
      seen = true;
    }
  }
  return seen ? sum : NaN;
}

async function scrape(ports: number[]): Promise<string[]> {
  return Promise.all(
    ports.map(async (port) => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) });
        return res.ok ? await res.text() : '';
      } catch {
        return '';
      }
    }),
  );
}

/** A metric summed over the pages scraped; a counter the SDK has not yet incremented is absent from its page, that is 0 (NaN when no page answered). */
const sumOver = (pages: string[], name: string) => {
  const answered = pages.filter((p) => p !== '');
  if (answered.length === 0) return NaN;
  return answered.map((p) => metricSum(p, name)).reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
};

/** Samples every `everyMs` until stopped; `samples` grows in place. */
export function startSampler(targets: SamplerTargets, everyMs: number) {
  const samples: InflightSample[] = [];
  const t0 = Date.now();
  let stopped = false;
  const take = async () => {
    const pages = await scrape(targets.metricsPorts);
    const rss = targets.workerPids().map(rssMiB);
    samples.push({
      atS: (Date.now() - t0) / 1000,
      workerRssMiB: rss.reduce((a, b) => a + b, 0),
      largestWorkerRssMiB: Math.max(0, ...rss),
      stickySize: sumOver(pages, 'temporal_sticky_cache_size'),
      stickyEvictions: sumOver(pages, 'temporal_sticky_cache_total_forced_eviction'),
      stickyHits: sumOver(pages, 'temporal_sticky_cache_hit'),
      stickyMisses: sumOver(pages, 'temporal_sticky_cache_miss'),
      temporalDiskMiB: diskMiB(targets.disk.temporal),
      postgresDiskMiB: diskMiB(targets.disk.postgres),
      load1: os.loadavg()[0],
    });
  };
  const loop = (async () => {
    while (!stopped) {
      await take();
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    samples,
    take,
    async stop() {
      stopped = true;
      await loop;
      await take();
    },
  };
}
