/**
 * npm run bench [-- --n 1000 --concurrency 20 --variants deployed,single,tuned]
 *
 * Measures the charge path, payout create beside it, and webhooks on fresh servers per variant: `deployed` (as `npm start`:
 * dev server on disk, worker and relay in their own process), `single` (the same, worker and relay
 * in the bench process), `tuned` (dev server in memory) and, when named, `topology` (the production
 * topology of src/topology, scripts/bench/topology.ts). Markdown report on stdout, progress on
 * stderr; the measurement itself runs in a child process (scripts/bench/run.ts) so that the
 * servers' logs stay off stdout. See docs/benchmarks.md.
 */
import { launch } from './bench/launcher';

if (process.env.BENCH_INNER === '1') void import('./bench/run.js');
else launch(__filename);
