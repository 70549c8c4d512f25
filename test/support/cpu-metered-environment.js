const fs = require('node:fs');
const path = require('node:path');
const { createHash } = require('node:crypto');
const { TestEnvironment } = require('jest-environment-node');

/**
 * jest's node environment, metering the CPU a test file costs: the jest process's CPU (every thread:
 * the test code, in-process Workers, GC) from the environment's setup, before the file is loaded, to its
 * teardown, after its last afterAll. Written to `TEST_CPU_DIR` (set by global setup) as one small JSON
 * file per test file; the summary reporter reads them (test/support/summary-reporter.js) and the budget
 * compares their sum (test/support/test-budget.js). Child processes and the suite's servers are not in
 * it: it is what the file itself costs, which wall time on a shared 2-core machine does not show
 * steadily (docs/testing.md, "The budget").
 */
class CpuMeteredEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    this.rootDir = config.projectConfig.rootDir;
  }

  async setup() {
    this.cpuStart = process.cpuUsage();
    await super.setup();
  }

  async teardown() {
    await super.teardown();
    const dir = process.env.TEST_CPU_DIR;
    if (!dir || !this.cpuStart) return;
    const used = process.cpuUsage(this.cpuStart);
    const file = path.relative(this.rootDir, this.testPath);
    const name = createHash('sha256').update(file).digest('hex').slice(0, 16);
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify({ file, cpuSeconds: (used.user + used.system) / 1e6 }));
  }
}

module.exports = CpuMeteredEnvironment;
