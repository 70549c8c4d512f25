/**
 * One run, serially: the suite shares one PostgreSQL and one Temporal dev server (global setup), and
 * time-skipping tests must not overlap.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  maxWorkers: 1,
  testTimeout: 120000,
};
