import { DEFAULT_RATE_LIMITS, loadConfig } from '../../src/config';
import { StartupError } from '../../src/support/startup-error';

/** RATE_LIMIT_SANDBOX and RATE_LIMIT_LIVE (INTERFACE.md "Rate limits"; README, Configuration): requests per second per merchant. */
test('unset or empty: 25 per second in the sandbox, 100 in live', () => {
  expect(DEFAULT_RATE_LIMITS).toEqual({ sandbox: 25, live: 100 });
  expect(loadConfig({}).rateLimits).toEqual({ sandbox: 25, live: 100 });
  expect(loadConfig({ RATE_LIMIT_SANDBOX: '', RATE_LIMIT_LIVE: ' ' }).rateLimits).toEqual({ sandbox: 25, live: 100 });
});

test('a whole number of at least 1 is taken as is', () => {
  expect(loadConfig({ RATE_LIMIT_SANDBOX: '1', RATE_LIMIT_LIVE: '2500' }).rateLimits).toEqual({ sandbox: 1, live: 2500 });
});

test.each([
  ['RATE_LIMIT_SANDBOX', '0'],
  ['RATE_LIMIT_LIVE', '0'],
  ['RATE_LIMIT_LIVE', '-5'],
  ['RATE_LIMIT_SANDBOX', '2.5'],
  ['RATE_LIMIT_SANDBOX', 'off'],
  ['RATE_LIMIT_LIVE', '1e3'],
  ['RATE_LIMIT_LIVE', '10000000000'],
])('%s=%p stops the start with one line naming the setting (0 would refuse every request)', (name, raw) => {
  expect(() => loadConfig({ [name]: raw })).toThrow(StartupError);
  expect(() => loadConfig({ [name]: raw })).toThrow(new RegExp(`^${name} must be a whole number of requests per second, at least 1 .*got "${raw}"$`));
});
