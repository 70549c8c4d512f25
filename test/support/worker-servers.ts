/**
 * Which servers a test file uses: global setup (test/support/global-setup.ts) starts one PostgreSQL
 * database and one Temporal dev server per jest worker and names them TEST_DATABASE_URL_<n> and
 * TEST_TEMPORAL_ADDRESS_<n>; `useWorkerServers()` (run before each integration file, jest `setupFiles`)
 * points TEST_DATABASE_URL and TEST_TEMPORAL_ADDRESS at this worker's (JEST_WORKER_ID; 1 in band).
 */
export function workerServerEnv(worker: number, servers: { databaseUrl: string; temporalAddress: string }): Record<string, string> {
  return { [`TEST_DATABASE_URL_${worker}`]: servers.databaseUrl, [`TEST_TEMPORAL_ADDRESS_${worker}`]: servers.temporalAddress };
}

export function useWorkerServers(env: NodeJS.ProcessEnv = process.env): void {
  const worker = env.JEST_WORKER_ID ?? '1';
  const databaseUrl = env[`TEST_DATABASE_URL_${worker}`];
  const temporalAddress = env[`TEST_TEMPORAL_ADDRESS_${worker}`];
  if (!databaseUrl || !temporalAddress) {
    throw new Error(`no servers for jest worker ${worker}: run the integration tests through jest's global setup (npm test, or npx jest --selectProjects integration)`);
  }
  env.TEST_DATABASE_URL = databaseUrl;
  env.TEST_TEMPORAL_ADDRESS = temporalAddress;
}
