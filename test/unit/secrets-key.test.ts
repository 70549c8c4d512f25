import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { requireProductionSettings, temporalAddressOf } from '../../src/runtime/production-settings';
import { DOCUMENTED_DEFAULT_SECRETS_KEY, isLocalRun, resolveKeyring, resolveSecretsKey } from '../../src/runtime/secrets-key';
import { StartupError } from '../../src/support/startup-error';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-key-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir, ...env });
const EXTERNAL_DB = 'postgres://app:pw@db.internal:5432/payments';

describe('SECRETS_KEY', () => {
  test('a local run: no DATABASE_URL (or the embedded server npm start hands its worker), NODE_ENV not production', () => {
    expect(isLocalRun(config({}))).toBe(true);
    expect(isLocalRun(config({ DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:54320/payments' }))).toBe(true);
    expect(isLocalRun(config({ DATABASE_URL: EXTERNAL_DB }))).toBe(false);
    expect(isLocalRun(config({ NODE_ENV: 'production' }))).toBe(false);
  });

  test('the documented default key is refused outside a local run, with a one-line startup error', () => {
    const envs: Record<string, string>[] = [{ DATABASE_URL: EXTERNAL_DB }, { NODE_ENV: 'production', DATABASE_URL: EXTERNAL_DB }, { NODE_ENV: 'production' }];
    for (const env of envs) {
      let error: unknown;
      try {
        resolveSecretsKey(config({ ...env, SECRETS_KEY: DOCUMENTED_DEFAULT_SECRETS_KEY }));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(StartupError);
      expect((error as Error).message).toMatch(/documented default key/);
      expect((error as Error).message).not.toContain('\n');
    }
    // Also when written differently (whitespace): the bytes are compared.
    expect(() => resolveSecretsKey(config({ DATABASE_URL: EXTERNAL_DB, SECRETS_KEY: ` ${DOCUMENTED_DEFAULT_SECRETS_KEY}\n` }))).toThrow(/documented default/);
  });

  test('in a local run the default key is accepted; as SECRETS_KEY_PREVIOUS it is accepted anywhere (to reseal away from it)', () => {
    expect(resolveSecretsKey(config({ SECRETS_KEY: DOCUMENTED_DEFAULT_SECRETS_KEY }))).toBe(DOCUMENTED_DEFAULT_SECRETS_KEY);
    const own = randomBytes(32).toString('base64');
    const ring = resolveKeyring(config({ DATABASE_URL: EXTERNAL_DB, NODE_ENV: 'production', SECRETS_KEY: own, SECRETS_KEY_PREVIOUS: DOCUMENTED_DEFAULT_SECRETS_KEY }));
    expect(ring.previous[0].equals(Buffer.from(DOCUMENTED_DEFAULT_SECRETS_KEY, 'base64'))).toBe(true);
  });

  test('required with an external database or in production; a local run generates one into DATA_DIR', () => {
    expect(() => resolveSecretsKey(config({ DATABASE_URL: EXTERNAL_DB }))).toThrow(StartupError);
    expect(() => resolveSecretsKey(config({ NODE_ENV: 'production' }))).toThrow(/SECRETS_KEY is required with NODE_ENV=production/);
    const local = resolveSecretsKey(config({}));
    expect(Buffer.from(local, 'base64')).toHaveLength(32);
    expect(resolveSecretsKey(config({}))).toBe(local);
    expect(fs.statSync(path.join(dataDir, 'secrets.key')).mode & 0o777).toBe(0o600);
  });
});

describe('NODE_ENV=production', () => {
  test('a missing DATABASE_URL or TEMPORAL_ADDRESS is a one-line startup error, never an embedded default', () => {
    expect(() => requireProductionSettings(config({ NODE_ENV: 'production' }))).toThrow(
      new StartupError('NODE_ENV=production requires DATABASE_URL and TEMPORAL_ADDRESS (no embedded PostgreSQL or Temporal dev server in production)'),
    );
    expect(() => requireProductionSettings(config({ NODE_ENV: 'production', DATABASE_URL: EXTERNAL_DB }))).toThrow(/requires TEMPORAL_ADDRESS \(/);
    expect(() => temporalAddressOf(config({ NODE_ENV: 'production', DATABASE_URL: EXTERNAL_DB }))).toThrow(/requires TEMPORAL_ADDRESS/);
    expect(() => requireProductionSettings(config({ NODE_ENV: 'production', DATABASE_URL: EXTERNAL_DB, TEMPORAL_ADDRESS: 'temporal:7233' }))).not.toThrow();
  });

  test('outside production the embedded defaults remain', () => {
    expect(() => requireProductionSettings(config({}))).not.toThrow();
    expect(temporalAddressOf(config({}))).toBe('127.0.0.1:7233');
  });
});
