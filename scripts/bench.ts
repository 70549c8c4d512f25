/**
 * npm run bench [-- --n 1000 --concurrency 20 --variants deployed,single,tuned]
 *
 * Measures the charge path, payout create beside it, and webhooks on fresh servers per variant: `deployed` (as `npm start`:
 * dev server on disk, worker and relay in their own process), `single` (the same, worker and relay
 * in the bench process), `tuned` (dev server in memory) and, when named, `topology` (the production
 * topology of src/topology, scripts/bench/shared/topology.ts). Markdown report on stdout, progress on
 * stderr; the measurement itself runs in a child process (scripts/bench/main/run.ts) so that the
 * servers' logs stay off stdout. See docs/benchmarks.md.
 */
import { launch } from './bench/shared/launcher';

const only = process.argv.findIndex((a) => a === '--only' || a === '--only=reads');
// `--only retention` (issue 34, Retention): its own measurement in the child (scripts/bench/retention/retention.ts).
const retention = process.argv.some((a, i) => a === '--only=retention' || (a === '--only' && process.argv[i + 1] === 'retention'));
// `--only inflight` (issue 34, payments in flight): scripts/bench/inflight/inflight.ts, in the child as well.
const inflight = process.argv.some((a, i) => a === '--only=inflight' || (a === '--only' && process.argv[i + 1] === 'inflight'));
// `--only omes` (issue 34, the omes baseline): scripts/bench/omes/omes-run.ts, in the child as well.
const omes = process.argv.some((a, i) => a === '--only=omes' || (a === '--only' && process.argv[i + 1] === 'omes'));
// `--only cost` (issue 48, the cost of a charge): scripts/bench/cost/cost.ts, in the child as well.
const cost = process.argv.some((a, i) => a === '--only=cost' || (a === '--only' && process.argv[i + 1] === 'cost'));
// `--only throttle` (issue 49, the per-endpoint webhook throttle): scripts/bench/throttle/throttle.ts, in the child as well.
const throttle = process.argv.some((a, i) => a === '--only=throttle' || (a === '--only' && process.argv[i + 1] === 'throttle'));
// `--only fifo` (issue 49, ordered webhook delivery): scripts/bench/fifo/fifo.ts, in the child as well.
const fifo = process.argv.some((a, i) => a === '--only=fifo' || (a === '--only' && process.argv[i + 1] === 'fifo'));
// `--only reads` (issue 34, a million rows per merchant): the reads bench alone, in this process (scripts/bench/reads/reads.ts).
if (only >= 0 && (process.argv[only] === '--only=reads' || process.argv[only + 1] === 'reads')) void import('./bench/reads/reads.js');
else if (process.env.BENCH_INNER === '1' && cost) void import('./bench/cost/cost.js');
else if (process.env.BENCH_INNER === '1' && throttle) void import('./bench/throttle/throttle.js');
else if (process.env.BENCH_INNER === '1' && fifo) void import('./bench/fifo/fifo.js');
else if (process.env.BENCH_INNER === '1' && omes) void import('./bench/omes/omes-run.js');
else if (process.env.BENCH_INNER === '1') void import(retention ? './bench/retention/retention.js' : inflight ? './bench/inflight/inflight.js' : './bench/main/run.js');
else launch(__filename);
