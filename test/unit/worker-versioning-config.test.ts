import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { StartupError } from '../../src/support/startup-error';
import { workerVersioningOptions } from '../../workers/worker-versioning';

describe('WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID', () => {
  test('neither: an unversioned worker, as before (no workerDeploymentOptions)', () => {
    expect(loadConfig({}).workerDeployment).toBeUndefined();
    expect(loadConfig({ WORKER_DEPLOYMENT_NAME: ' ', WORKER_BUILD_ID: '' }).workerDeployment).toBeUndefined();
    expect(workerVersioningOptions(undefined)).toEqual({});
  });

  test('both: the version every Worker registers, payment workflows PINNED by default', () => {
    const version = loadConfig({ WORKER_DEPLOYMENT_NAME: ' payments ', WORKER_BUILD_ID: '2026-11-25.3f9c2b1' }).workerDeployment;
    expect(version).toEqual({ deploymentName: 'payments', buildId: '2026-11-25.3f9c2b1' });
    expect(workerVersioningOptions(version)).toEqual({
      workerDeploymentOptions: { useWorkerVersioning: true, version: { deploymentName: 'payments', buildId: '2026-11-25.3f9c2b1' }, defaultVersioningBehavior: 'PINNED' },
    });
  });

  test.each([
    ['a name without a build id', { WORKER_DEPLOYMENT_NAME: 'payments' }, /^WORKER_DEPLOYMENT_NAME is set but WORKER_BUILD_ID is not: Worker Versioning needs both/],
    ['a build id without a name', { WORKER_BUILD_ID: 'b1' }, /^WORKER_BUILD_ID is set but WORKER_DEPLOYMENT_NAME is not: Worker Versioning needs both/],
    ['a dot in the name', { WORKER_DEPLOYMENT_NAME: 'payments.eu', WORKER_BUILD_ID: 'b1' }, /^WORKER_DEPLOYMENT_NAME must not contain "\."/],
    ['a reserved name', { WORKER_DEPLOYMENT_NAME: '__payments', WORKER_BUILD_ID: 'b1' }, /^WORKER_DEPLOYMENT_NAME must not start with "__"/],
    ['a reserved build id', { WORKER_DEPLOYMENT_NAME: 'payments', WORKER_BUILD_ID: '__b1' }, /^WORKER_BUILD_ID must not start with "__"/],
    ['a build id over 255 characters', { WORKER_DEPLOYMENT_NAME: 'payments', WORKER_BUILD_ID: 'x'.repeat(256) }, /^WORKER_BUILD_ID must be at most 255 characters, got 256/],
  ])('%s stops start-up with one line naming the setting', (_label, env, message) => {
    expect(() => loadConfig(env)).toThrow(StartupError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  test('a build id of 255 characters is accepted', () => {
    expect(loadConfig({ WORKER_DEPLOYMENT_NAME: 'payments', WORKER_BUILD_ID: 'x'.repeat(255) }).workerDeployment?.buildId).toHaveLength(255);
  });
});

test('no workflow names its own versioning behavior (an unversioned worker could not complete its tasks)', () => {
  const dir = path.resolve(__dirname, '../../workflows');
  const annotated = fs.readdirSync(dir).filter((file) => file.endsWith('.ts') && /versioningBehavior/.test(fs.readFileSync(path.join(dir, file), 'utf8')));
  expect(annotated).toEqual([]);
});
