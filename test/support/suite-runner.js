const { default: TestRunner, EmittingTestRunner } = require('jest-runner');

/** The project whose files run one at a time (jest.config.js). */
const ONE_AT_A_TIME = 'time-skipping';

/**
 * jest's own runner, twice over: the files of the `time-skipping` project run one at a time in a pool
 * of one worker, while every other file runs in the pool of `maxWorkers` beside them. jest has no
 * per-project maxWorkers (jestjs/jest#10936); this is that, and nothing else. A run in band (`-i`, or
 * jest's choice for a single file) runs everything in band, as jest does.
 *
 * Time-skipping files each start their own test server, but they are the tests most sensitive to a
 * loaded machine (the test server skips time while a local activity it cannot see still runs), so
 * two never compete with each other.
 */
/**
 * How many time-skipping files run at once: 1, unless TEST_TIME_SKIPPING_WORKERS says otherwise.
 * `npm run test:quick` sets 4: nothing else runs once its unit and replay files are done, and the
 * time-skipping files, one at a time, were its whole length (5 min 40 s on a fresh clone). They wait
 * more than they compute (the project alone kept both cores 46 % busy with two at once): alone, the
 * project took 142 s with two at once and 82 s with four.
 */
function timeSkippingWorkers() {
  const raw = process.env.TEST_TIME_SKIPPING_WORKERS;
  const n = raw === undefined ? 1 : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`TEST_TIME_SKIPPING_WORKERS must be a positive integer, got "${raw}"`);
  return n;
}

class SuiteRunner extends EmittingTestRunner {
  constructor(globalConfig, context, options) {
    super(globalConfig, context, options);
    this.pool = new TestRunner(globalConfig, context, options);
    this.single = new TestRunner({ ...globalConfig, maxWorkers: timeSkippingWorkers() }, context, options);
  }

  async runTests(tests, watcher, options) {
    if (options.serial) return this.pool.runTests(tests, watcher, options);
    const single = tests.filter((test) => test.context.config.displayName?.name === ONE_AT_A_TIME);
    const rest = tests.filter((test) => !single.includes(test));
    await Promise.all([
      single.length > 0 ? this.single.runTests(single, watcher, options) : undefined,
      rest.length > 0 ? this.pool.runTests(rest, watcher, options) : undefined,
    ]);
  }

  on(eventName, listener) {
    const off = [this.pool.on(eventName, listener), this.single.on(eventName, listener)];
    return () => off.forEach((unsubscribe) => unsubscribe());
  }
}

module.exports = SuiteRunner;
