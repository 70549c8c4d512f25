import {
  AGGREGATOR_CALL_MARGIN_MS,
  AGGREGATOR_REQUESTS_PER_CALL,
  DEFAULT_AGGREGATOR_TIMEOUT_MS,
  MAX_AGGREGATOR_TIMEOUT_MS,
  aggregatorConfigFromEnv,
  aggregatorConfigSummary,
} from '../../src/rail/aggregator/config';
import { RAIL_CALL_TIMEOUT_MS } from '../../src/domain/live-rail';
import { StartupError } from '../../src/support/startup-error';

const KEY = 'FLWSECK_TEST-0123456789abcdef-X';
const HASH = 'webhook-hash-'.padEnd(40, 'z');
const ENCRYPTION_KEY = 'FLWSECK_TEST1234567890ab';
const base = { AGGREGATOR_BASE_URL: 'https://api.flutterwave.com/', AGGREGATOR_SECRET_KEY: KEY, AGGREGATOR_WEBHOOK_HASH: HASH };

function problem(env: NodeJS.ProcessEnv): string {
  try {
    aggregatorConfigFromEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).not.toContain(KEY);
    expect((error as Error).message).not.toContain(HASH);
    return (error as Error).message;
  }
  throw new Error('no error');
}

describe('aggregatorConfigFromEnv', () => {
  test('no AGGREGATOR_* variable (or only blank ones): no aggregator', () => {
    expect(aggregatorConfigFromEnv({})).toBeUndefined();
    expect(aggregatorConfigFromEnv({ AGGREGATOR_BASE_URL: '  ', AGGREGATOR_SECRET_KEY: '' })).toBeUndefined();
    expect(aggregatorConfigFromEnv({ PARTNER_BASE_URL: 'https://momo.example.com' })).toBeUndefined();
  });

  test('the values, with the default timeout; a path prefix is kept, the trailing slash dropped', () => {
    expect(aggregatorConfigFromEnv(base)).toEqual({ baseUrl: 'https://api.flutterwave.com', secretKey: KEY, webhookHash: HASH, timeoutMs: DEFAULT_AGGREGATOR_TIMEOUT_MS });
    expect(aggregatorConfigFromEnv({ ...base, AGGREGATOR_BASE_URL: 'http://127.0.0.1:4010/aggregator/', AGGREGATOR_TIMEOUT_MS: '2500' })).toMatchObject({ baseUrl: 'http://127.0.0.1:4010/aggregator', timeoutMs: 2_500 });
  });

  test('a partial configuration is refused, naming what is missing', () => {
    expect(problem({ AGGREGATOR_SECRET_KEY: KEY })).toMatch(/AGGREGATOR_SECRET_KEY is set but AGGREGATOR_BASE_URL is not/);
    expect(problem({ AGGREGATOR_SECRET_KEY: KEY, AGGREGATOR_TIMEOUT_MS: '1000' })).toMatch(/AGGREGATOR_SECRET_KEY, AGGREGATOR_TIMEOUT_MS are set but AGGREGATOR_BASE_URL is not/);
    expect(problem({ AGGREGATOR_BASE_URL: base.AGGREGATOR_BASE_URL })).toMatch(/AGGREGATOR_SECRET_KEY must be set/);
    expect(problem({ ...base, AGGREGATOR_WEBHOOK_HASH: undefined })).toMatch(/AGGREGATOR_WEBHOOK_HASH must be set/);
  });

  test('bad values are refused without repeating a secret', () => {
    expect(problem({ ...base, AGGREGATOR_BASE_URL: 'api.flutterwave.com' })).toMatch(/must be an http\(s\) URL/);
    expect(problem({ ...base, AGGREGATOR_BASE_URL: 'ftp://api.example.com' })).toMatch(/http\(s\) URL/);
    expect(problem({ ...base, AGGREGATOR_BASE_URL: 'https://api.example.com/?x=1' })).toMatch(/query or a fragment/);
    expect(problem({ ...base, AGGREGATOR_BASE_URL: `https://user:${KEY}@api.example.com` })).toMatch(/must not carry credentials/);
    expect(problem({ ...base, AGGREGATOR_BASE_URL: 'http://api.example.com', NODE_ENV: 'production' })).toMatch(/https:\/\/ URL with NODE_ENV=production/);
    expect(aggregatorConfigFromEnv({ ...base, NODE_ENV: 'production' })?.baseUrl).toBe('https://api.flutterwave.com');
    expect(problem({ ...base, AGGREGATOR_SECRET_KEY: 'short' })).toMatch(/AGGREGATOR_SECRET_KEY must be at least 16 characters/);
    expect(problem({ ...base, AGGREGATOR_WEBHOOK_HASH: 'x'.repeat(31) })).toMatch(/AGGREGATOR_WEBHOOK_HASH must be at least 32 characters.*got 31/);
    expect(problem({ ...base, AGGREGATOR_WEBHOOK_HASH: `${'x'.repeat(20)} ${'y'.repeat(20)}` })).toMatch(/must not contain spaces/);
    expect(problem({ ...base, AGGREGATOR_WEBHOOK_HASH: KEY.padEnd(40, 'k'), AGGREGATOR_SECRET_KEY: KEY.padEnd(40, 'k') })).toMatch(/must not be the secret key/);
  });

  test('AGGREGATOR_TIMEOUT_MS: its worst case (three requests and the margin) fits a rail call activity', () => {
    expect(MAX_AGGREGATOR_TIMEOUT_MS).toBe(18_333);
    expect(AGGREGATOR_REQUESTS_PER_CALL * MAX_AGGREGATOR_TIMEOUT_MS + AGGREGATOR_CALL_MARGIN_MS).toBeLessThanOrEqual(RAIL_CALL_TIMEOUT_MS);
    expect(AGGREGATOR_REQUESTS_PER_CALL * DEFAULT_AGGREGATOR_TIMEOUT_MS + AGGREGATOR_CALL_MARGIN_MS).toBeLessThanOrEqual(RAIL_CALL_TIMEOUT_MS);
    expect(aggregatorConfigFromEnv({ ...base, AGGREGATOR_TIMEOUT_MS: String(MAX_AGGREGATOR_TIMEOUT_MS) })?.timeoutMs).toBe(MAX_AGGREGATOR_TIMEOUT_MS);
    expect(problem({ ...base, AGGREGATOR_TIMEOUT_MS: String(MAX_AGGREGATOR_TIMEOUT_MS + 1) })).toMatch(/does not fit a rail call's 60000 ms activity budget.*3 × 18334 \+ 5000 ms = 60002 ms; set at most 18333/);
    for (const bad of ['99', 'ten', '1.5', '-5']) expect(problem({ ...base, AGGREGATOR_TIMEOUT_MS: bad })).toMatch(/whole number of milliseconds from 100 to 18333/);
  });

  test('the summary names no secret', () => {
    const summary = JSON.stringify(aggregatorConfigSummary(aggregatorConfigFromEnv(base)!));
    expect(summary).not.toContain(KEY);
    expect(summary).not.toContain(HASH);
    expect(JSON.parse(summary)).toEqual({ baseUrl: 'https://api.flutterwave.com', timeoutMs: DEFAULT_AGGREGATOR_TIMEOUT_MS, encryptionKey: 'unset' });
    const withKey = JSON.stringify(aggregatorConfigSummary(aggregatorConfigFromEnv({ ...base, AGGREGATOR_ENCRYPTION_KEY: ENCRYPTION_KEY })!));
    expect(withKey).not.toContain(ENCRYPTION_KEY);
    expect(JSON.parse(withKey)).toMatchObject({ encryptionKey: 'set' });
  });

  test('AGGREGATOR_ENCRYPTION_KEY: optional; when set exactly 24 printable characters, not the secret key; never repeated in a message', () => {
    expect(aggregatorConfigFromEnv(base)).not.toHaveProperty('encryptionKey');
    expect(aggregatorConfigFromEnv({ ...base, AGGREGATOR_ENCRYPTION_KEY: ` ${ENCRYPTION_KEY} ` })?.encryptionKey).toBe(ENCRYPTION_KEY);
    for (const [bad, said] of [
      [ENCRYPTION_KEY.slice(1), /exactly 24 characters.*got 23/],
      [`${ENCRYPTION_KEY}x`, /exactly 24 characters.*got 25/],
      ['FLWSECK_TEST 1234567890a', /printable ASCII without spaces/],
      ['FLWSECK_TEST1234567890é€', /printable ASCII/],
    ] as const) {
      const message = problem({ ...base, AGGREGATOR_ENCRYPTION_KEY: bad });
      expect(message).toMatch(said);
      expect(message).not.toContain(bad);
    }
    const key24 = 'FLWSECK_TEST-0123456789ab';
    expect(problem({ ...base, AGGREGATOR_SECRET_KEY: key24.slice(0, 24), AGGREGATOR_ENCRYPTION_KEY: key24.slice(0, 24) })).toMatch(/must not be the secret key/);
    expect(problem({ AGGREGATOR_ENCRYPTION_KEY: ENCRYPTION_KEY })).toMatch(/AGGREGATOR_ENCRYPTION_KEY is set but AGGREGATOR_BASE_URL is not/);
  });
});
