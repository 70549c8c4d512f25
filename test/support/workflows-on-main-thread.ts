/**
 * The suite's in-process Temporal Workers run workflow code on the test file's own thread (the SDK's
 * `debugMode`, read from TEMPORAL_DEBUG when a Worker is created), for the unit, replay, time-skipping
 * and integration projects (jest.config.js `setupFiles`; the system tier does not load this file).
 *
 * Why: a Worker on a workflow thread starts a worker thread that loads the SDK and compiles the 2 MB
 * workflow bundle in an isolate of its own, about 0.45 CPU-s per Worker; the payments worker is five
 * Workers (one per task queue), so every harness file paid about 2.3 CPU-s before its first test. On
 * the main thread the five share one isolate, whose compile cache makes the bundle cheap after the
 * first: 0.2 CPU-s for all five (docs/testing.md, "Workflows on the main thread").
 *
 * What it changes: the same workflow code runs in the same reusable V8 sandbox the worker thread
 * would use (the SDK's ReusableVMWorkflowCreator); only the thread and the deadlock detector (an
 * activation running past 5 s) are gone, as in the SDK's own replay Workers. What still runs workflows
 * on worker threads, as deployed: every worker process the tests start (test/support/worker-child.ts,
 * session-in-child.ts and the CLI's children drop TEMPORAL_DEBUG), and the whole system tier.
 */
process.env.TEMPORAL_DEBUG = '1';
