/** The server set-ups the bench measures; each gets fresh servers. */
export interface Variant {
  name: VariantName;
  title: string;
  /** Temporal dev server state in `<run folder>/temporal.db` (as `npm start`) or in memory. */
  persistentDevServer: boolean;
  /** The worker and relay in their own process (`startWorkerProcess`, as `npm start`) or in the bench process. */
  separateWorker: boolean;
  /**
   * The production topology (src/topology, `npm run topology -- up`) instead of the bench's own
   * servers: the real Temporal server on its PostgreSQL, two versioned workers, two APIs behind the
   * proxy (scripts/bench/shared/topology.ts). The two fields above do not apply then.
   */
  topology?: boolean;
}

export type VariantName = 'deployed' | 'single' | 'tuned' | 'topology';

export const VARIANTS: Record<VariantName, Variant> = {
  deployed: {
    name: 'deployed',
    title: 'deployed: as `npm start` (dev server on disk; worker and relay in their own process)',
    persistentDevServer: true,
    separateWorker: true,
  },
  single: {
    name: 'single',
    title: 'single process: dev server on disk; worker and relay in the bench process',
    persistentDevServer: true,
    separateWorker: false,
  },
  tuned: {
    name: 'tuned',
    title: 'tuned (not what `npm start` runs): dev server in memory; worker and relay in the bench process',
    persistentDevServer: false,
    separateWorker: false,
  },
  topology: {
    name: 'topology',
    title: 'topology: as `npm run topology -- up` (Temporal server 1.32.0 on its own PostgreSQL; two workers with Worker Versioning; two APIs behind the proxy)',
    persistentDevServer: true,
    separateWorker: true,
    topology: true,
  },
};

/** `--variants deployed,single,tuned` → the variants in that order (no repeats). */
export function parseVariants(raw: string): Variant[] {
  const names = [...new Set(raw.split(',').map((s) => s.trim()).filter(Boolean))];
  if (names.length === 0) throw new Error('--variants needs at least one of deployed, single, tuned, topology');
  return names.map((n) => {
    if (!(n in VARIANTS)) throw new Error(`unknown variant "${n}" (known: ${Object.keys(VARIANTS).join(', ')})`);
    return VARIANTS[n as VariantName];
  });
}
