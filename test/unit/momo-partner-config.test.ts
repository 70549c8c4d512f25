import {
  DEFAULT_PARTNER_TIMEOUT_MS,
  MAX_PARTNER_TIMEOUT_MS,
  PARTNER_REQUESTS_PER_CALL,
  RAIL_CALL_BUDGET_MS,
  RAIL_CALL_MARGIN_MS,
  loadPartnerConfig,
  partnerConfigSummary,
} from '../../src/rail/partner-config';
import { StartupError } from '../../src/support/startup-error';
import { RAIL_CALL_TIMEOUT_MS } from '../../src/domain/live-rail';

const SECRET = 's'.repeat(32);
const base = {
  PARTNER_BASE_URL: 'https://proxy.momoapi.mtn.com/',
  PARTNER_API_USER: 'f1c3d4a0-1111-4222-8333-944455556666',
  PARTNER_API_KEY: 'api-key-secret-value',
  PARTNER_SUBSCRIPTION_KEY: 'subscription-secret-value',
  PARTNER_CALLBACK_BASE_URL: 'https://pay.example.com/',
  PARTNER_CALLBACK_SECRET: SECRET,
};

function problem(env: NodeJS.ProcessEnv): string {
  try {
    loadPartnerConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(StartupError);
    return (error as Error).message;
  }
  throw new Error('no error');
}

describe('loadPartnerConfig', () => {
  test('no PARTNER_BASE_URL: no partner (npm start plays the fake)', () => {
    expect(loadPartnerConfig({})).toBeUndefined();
    expect(loadPartnerConfig({ PARTNER_BASE_URL: '  ', PARTNER_API_KEY: 'x' })).toBeUndefined();
  });

  test('the values, with their defaults', () => {
    const credentials = { apiUser: base.PARTNER_API_USER, apiKey: base.PARTNER_API_KEY, subscriptionKey: base.PARTNER_SUBSCRIPTION_KEY };
    expect(loadPartnerConfig(base)).toEqual({
      baseUrl: 'https://proxy.momoapi.mtn.com',
      credentials: { collection: credentials, disbursement: credentials },
      targetEnvironment: 'sandbox',
      callbackBaseUrl: 'https://pay.example.com',
      callbackSecret: SECRET,
      timeoutMs: 5_000,
    });
    expect(loadPartnerConfig({ ...base, PARTNER_TARGET_ENVIRONMENT: 'mtnghana', PARTNER_TIMEOUT_MS: '2500' })).toMatchObject({
      targetEnvironment: 'mtnghana',
      timeoutMs: 2_500,
    });
  });

  test('PARTNER_TIMEOUT_MS: its worst case, four requests and the margin, fits the rail activity budget', () => {
    // The budget is the rail activities' startToCloseTimeout, as the workflows set it.
    expect(RAIL_CALL_BUDGET_MS).toBe(RAIL_CALL_TIMEOUT_MS);
    expect(MAX_PARTNER_TIMEOUT_MS).toBe(13_750);
    expect(PARTNER_REQUESTS_PER_CALL * MAX_PARTNER_TIMEOUT_MS + RAIL_CALL_MARGIN_MS).toBeLessThanOrEqual(RAIL_CALL_BUDGET_MS);
    expect(PARTNER_REQUESTS_PER_CALL * DEFAULT_PARTNER_TIMEOUT_MS + RAIL_CALL_MARGIN_MS).toBeLessThanOrEqual(RAIL_CALL_BUDGET_MS);
    expect(loadPartnerConfig({ ...base, PARTNER_TIMEOUT_MS: '13750' })!.timeoutMs).toBe(13_750);
    expect(loadPartnerConfig({ ...base, PARTNER_TIMEOUT_MS: '100' })!.timeoutMs).toBe(100);
  });

  test('PARTNER_POLL_INTERVAL is refused even with no partner configured: it was removed', () => {
    expect(() => loadPartnerConfig({ PARTNER_POLL_INTERVAL: '2m' })).toThrow(StartupError);
    expect(loadPartnerConfig({ PARTNER_POLL_INTERVAL: '  ' })).toBeUndefined();
  });

  test('per-product credentials override the shared ones', () => {
    const config = loadPartnerConfig({ ...base, PARTNER_DISBURSEMENT_API_USER: 'disb-user', PARTNER_DISBURSEMENT_SUBSCRIPTION_KEY: 'disb-sub' })!;
    expect(config.credentials.collection.apiUser).toBe(base.PARTNER_API_USER);
    expect(config.credentials.disbursement).toEqual({ apiUser: 'disb-user', apiKey: base.PARTNER_API_KEY, subscriptionKey: 'disb-sub' });
    const { PARTNER_API_KEY: _, ...noSharedKey } = base;
    expect(loadPartnerConfig({ ...noSharedKey, PARTNER_COLLECTION_API_KEY: 'a', PARTNER_DISBURSEMENT_API_KEY: 'b' })!.credentials.disbursement.apiKey).toBe('b');
  });

  test.each([
    [{ PARTNER_BASE_URL: 'not a url' }, /PARTNER_BASE_URL must be an http\(s\) URL/],
    [{ PARTNER_BASE_URL: 'ftp://partner.example.com' }, /PARTNER_BASE_URL must be an http\(s\) URL/],
    [{ PARTNER_BASE_URL: 'https://u:p@partner.example.com' }, /PARTNER_BASE_URL must not carry credentials/],
    [{ PARTNER_API_USER: '' }, /PARTNER_API_USER \(or PARTNER_COLLECTION_API_USER\) must be set/],
    [{ PARTNER_SUBSCRIPTION_KEY: undefined }, /PARTNER_SUBSCRIPTION_KEY \(or PARTNER_COLLECTION_SUBSCRIPTION_KEY\) must be set/],
    [{ PARTNER_TARGET_ENVIRONMENT: 'mtn ghana' }, /PARTNER_TARGET_ENVIRONMENT must be/],
    [{ PARTNER_CALLBACK_BASE_URL: '' }, /PARTNER_CALLBACK_BASE_URL must be set/],
    [{ PARTNER_CALLBACK_BASE_URL: 'https://pay.example.com/?a=1' }, /PARTNER_CALLBACK_BASE_URL must not carry a query/],
    [{ PARTNER_CALLBACK_SECRET: '' }, /PARTNER_CALLBACK_SECRET must be set/],
    [{ PARTNER_CALLBACK_SECRET: 'short-secret' }, /PARTNER_CALLBACK_SECRET .* at least 32 characters .*got 12 characters/],
    [{ PARTNER_TIMEOUT_MS: '5s' }, /PARTNER_TIMEOUT_MS must be a whole number of milliseconds/],
    [{ PARTNER_TIMEOUT_MS: '10' }, /PARTNER_TIMEOUT_MS must be a whole number of milliseconds from 100/],
    [{ PARTNER_TIMEOUT_MS: '120000' }, /PARTNER_TIMEOUT_MS=120000 does not fit a rail call's 60000 ms activity budget: .* 4 × 120000 \+ 5000 ms = 485000 ms; set at most 13750/],
    [{ PARTNER_TIMEOUT_MS: '13751' }, /PARTNER_TIMEOUT_MS=13751 does not fit/],
    [{ PARTNER_POLL_INTERVAL: '30s' }, /PARTNER_POLL_INTERVAL was removed: it never had an effect.*fixed in the workflow code/],
  ])('%j: an error naming the variable', (change, message) => {
    expect(problem({ ...base, ...change })).toMatch(message);
  });

  test('NODE_ENV=production: PARTNER_CALLBACK_BASE_URL must be https (the URLs carry the callback token); http is kept outside production', () => {
    const http = { ...base, PARTNER_CALLBACK_BASE_URL: 'http://pay.example.com/' };
    expect(problem({ ...http, NODE_ENV: 'production' })).toMatch(/PARTNER_CALLBACK_BASE_URL must be an https:\/\/ URL with NODE_ENV=production .*got "http:\/\/pay\.example\.com"/);
    expect(loadPartnerConfig({ ...base, PARTNER_CALLBACK_BASE_URL: 'HTTPS://pay.example.com/', NODE_ENV: 'production' })?.callbackBaseUrl).toBe('https://pay.example.com');
    expect(loadPartnerConfig({ ...http, NODE_ENV: 'development' })?.callbackBaseUrl).toBe('http://pay.example.com');
    expect(loadPartnerConfig(http)?.callbackBaseUrl).toBe('http://pay.example.com');
  });

  test('no error message and no summary repeats a secret', () => {
    const messages = [
      problem({ ...base, PARTNER_CALLBACK_SECRET: 'short-secret' }),
      problem({ ...base, PARTNER_SUBSCRIPTION_KEY: '' }),
      problem({ ...base, PARTNER_TIMEOUT_MS: 'x' }),
    ].join('\n');
    expect(messages).not.toContain('short-secret');
    expect(messages).not.toContain(base.PARTNER_API_KEY);
    const summary = JSON.stringify(partnerConfigSummary(loadPartnerConfig(base)!));
    for (const secret of [SECRET, base.PARTNER_API_KEY, base.PARTNER_SUBSCRIPTION_KEY]) expect(summary).not.toContain(secret);
    expect(summary).toContain('proxy.momoapi.mtn.com');
  });
});
