const fs = require('node:fs');
const path = require('node:path');
const { default: Sequencer } = require('@jest/test-sequencer');
const { allDurations } = require('./test-budget');

/**
 * Longest files first, from the committed figures of test/durations/ (test/support/test-budget.js),
 * so the heaviest files never start last and leave one worker idle at the end. A file with no figure
 * yet (new) goes first, the larger first. On a fresh clone jest has no timing cache and would order by
 * file size alone; the committed figures replace it (and jest's local cache, so runs order alike).
 */
class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    const committed = allDurations(path.resolve(__dirname, '../..'));
    const seconds = (test) => {
      const rel = path.relative(test.context.config.rootDir, test.path);
      return committed[rel] ?? Number.MAX_SAFE_INTEGER;
    };
    const size = (test) => {
      try {
        return fs.statSync(test.path).size;
      } catch {
        return 0;
      }
    };
    return [...tests].sort((a, b) => seconds(b) - seconds(a) || size(b) - size(a));
  }
}

module.exports = LongestFirstSequencer;
