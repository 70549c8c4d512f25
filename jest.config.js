/**
 * Two tiers (docs/testing.md): the fast tier, `npm test` (projects unit, replay, time-skipping,
 * integration), and the system tier, `npm run test:system` (project system: whole deployments).
 * Five projects:
 * - unit: no servers;
 * - replay: recorded histories against the current workflow code;
 * - time-skipping: workflows against the time-skipping test server with activity doubles, one file at a
 *   time (test/support/suite-runner.js);
 * - integration: real PostgreSQL and a real Temporal dev server, one isolated set per jest worker
 *   (test/support/global-setup.ts), `maxWorkers` files at once;
 * - system: the same servers, for tests that start whole deployments of their own (the chaos run on
 *   the topology, `npm start` walks, worker builds as processes, the simulator's sweeps).
 * Every project shares one workflow bundle, made once per run (WORKFLOW_BUNDLE_PATH).
 * `npm run test:quick` runs the first three, without the long histories (TEST_QUICK, below).
 */
const shared = {
  // jest's node environment, metering each file's CPU for the budget (test/support/cpu-metered-environment.js).
  testEnvironment: '<rootDir>/test/support/cpu-metered-environment.js',
  // TypeScript compiled by SWC, types stripped only: `tsc` checks the types before jest (npm test's
  // checks), and on a fresh clone (no transform cache) ts-jest (replaced) compiled for about 28 of test:quick's
  // 240 CPU-s (issue 42).
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'commonjs' }, sourceMaps: 'inline' }] },
  runner: '<rootDir>/test/support/suite-runner.js',
  // V8's code cache kept across a jest worker's files (test/support/code-cached-runtime.js).
  runtime: '<rootDir>/test/support/code-cached-runtime.js',
  globalSetup: '<rootDir>/test/support/global-setup-bundle.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Not crawled: .cache/ holds the Go module cache of scripts/install-*.sh (its .snap files would be
  // reported as obsolete snapshots, failing the run) and the topology's data.
  modulePathIgnorePatterns: ['<rootDir>/.cache/', '<rootDir>/.topology/', '<rootDir>/.data/'],
};

/** The time-skipping replay test (a patched workflow run on the test server, then replayed). */
const TIME_SKIPPING_REPLAY = '<rootDir>/test/replay/patch-discipline.test.ts';

/**
 * The files `npm run test:quick` (TEST_QUICK=1) leaves to `npm test`: workflows followed through days
 * of simulated time until they continue as new (thousands of history events each; together about 45
 * of the quick tier's 250 CPU-s on a fresh clone, and two of its longest files). Everything else of
 * the first three projects runs in both.
 */
const LONG_HISTORIES = ['<rootDir>/test/workflows/[a-z-]*-wait-continues\\.test\\.ts$'];
const quick = process.env.TEST_QUICK === '1';

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...shared, displayName: 'replay', testMatch: ['<rootDir>/test/replay/**/*.test.ts'], testPathIgnorePatterns: [TIME_SKIPPING_REPLAY] },
    { ...shared, displayName: 'time-skipping', testMatch: ['<rootDir>/test/workflows/**/*.test.ts', TIME_SKIPPING_REPLAY], ...(quick ? { testPathIgnorePatterns: LONG_HISTORIES } : {}) },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFiles: ['<rootDir>/test/support/setup-worker-servers.ts'],
    },
    {
      ...shared,
      displayName: 'system',
      testMatch: ['<rootDir>/test/system/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFiles: ['<rootDir>/test/support/setup-worker-servers.ts'],
    },
  ],
  // Longest files first, from the committed test/durations/ (test/support/test-budget.js).
  testSequencer: '<rootDir>/test/support/sequencer.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  // Three files at once on 2 cores: integration files wait on servers much of their time. Measured on a
  // fresh clone of this machine (docs/testing.md): 2 workers, jest 625 s wall (79 % of both cores
  // busy); 3 workers, 495 s. The system tier runs two at once (package.json test:system).
  maxWorkers: 3,
  testTimeout: 120000,
};
