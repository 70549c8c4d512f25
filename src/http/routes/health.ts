import Router from '@koa/router';
import type { Environment } from '../../domain/environment';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../domain/errors';
import type { ServiceDeps } from '../../services/context';
import { cachedFor } from '../../support/cached-for';
import { freshPollerCount } from '../../temporal/task-queue-pollers';
import { taskQueueFor } from '../../temporal/task-queues';

/** Each check's own limit, so /health answers even when a dependency hangs. */
const CHECK_TIMEOUT_MS = 2_000;

/** How long one computation of the checks answers every /health of the listener (see healthRoutes). */
export const HEALTH_CACHE_MS = 1_000;

function within<T>(ms: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work(), timeout]).finally(() => clearTimeout(timer));
}

async function databaseAnswers(deps: ServiceDeps): Promise<boolean> {
  await within(CHECK_TIMEOUT_MS, () => deps.orm.em.getConnection().execute('select 1'));
  return true;
}

async function temporalAnswers(deps: ServiceDeps): Promise<boolean> {
  const deadline = Date.now() + CHECK_TIMEOUT_MS;
  await within(CHECK_TIMEOUT_MS, () => deps.temporal.connection.withDeadline(deadline, () => deps.temporal.connection.workflowService.getSystemInfo({})));
  return true;
}

/** A worker polls `taskQueue` for workflow tasks (seen by the server in the last minute). */
async function workerPolls(deps: ServiceDeps, taskQueue: string): Promise<boolean> {
  const deadline = Date.now() + CHECK_TIMEOUT_MS;
  const pollers = await within(CHECK_TIMEOUT_MS, () => deps.temporal.connection.withDeadline(deadline, () => freshPollerCount(deps.temporal, taskQueue, 'workflow')));
  return pollers > 0;
}

/**
 * 200 `{"status":"ok"}` when PostgreSQL answers, Temporal answers and a worker polls the task queue
 * of the listener's own environment (`<TEMPORAL_TASK_QUEUE>-sandbox` on the sandbox listener,
 * `-live` on the live one): each listener reports whether its own environment's payments can run, so
 * a load balancer never takes the sandbox listener out because the live workers are down, or the
 * reverse. Otherwise 503 naming each part, e.g.
 * `{"status":"unavailable","database":true,"temporal":true,"worker":false}`, with `Retry-After` as
 * every 503 of the API (a client or load balancer polling it knows when to ask again; the chaos
 * runs hold every 503 to that). No authentication, so the answer is computed at most once per
 * HEALTH_CACHE_MS per listener (src/support/cached-for.ts): requests while the checks run wait for
 * them and share their answer, and those in the second after take it as it was (a flood of /health
 * costs one SQL statement and two Temporal calls a second, not one each). Each computation counts in
 * `payments_health_checks_total{environment,result}`.
 */
export function healthRoutes(deps: ServiceDeps, environment: Environment): Router {
  const router = new Router();
  const taskQueue = taskQueueFor(deps.taskQueue, environment);
  const checks = cachedFor(HEALTH_CACHE_MS, async () => {
    const [database, temporal, worker] = await Promise.all([
      databaseAnswers(deps).catch(() => false),
      temporalAnswers(deps).catch(() => false),
      workerPolls(deps, taskQueue).catch(() => false),
    ]);
    const ok = database && temporal && worker;
    deps.metrics?.healthChecks.inc({ environment, result: ok ? 'ok' : 'unavailable' });
    return { ok, database, temporal, worker };
  });
  router.get('/health', async (ctx) => {
    const { ok, database, temporal, worker } = await checks();
    ctx.status = ok ? 200 : 503;
    if (!ok) ctx.set('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    ctx.body = ok ? { status: 'ok' } : { status: 'unavailable', database, temporal, worker };
  });
  return router;
}
