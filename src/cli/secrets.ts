import { secretBoxFor } from '../runtime/secrets-key';
import { resealSecrets } from '../services/reseal-secrets';
import { act, type CliCommand } from './command';
import { withDatabase } from './connect';

/** `cli secrets reseal`. */
export function addSecretCommands(program: CliCommand): void {
  const secrets = program.command('secrets').description('the sealed secrets in the database');
  const reseal = secrets.command('reseal').description('re-seals every sealed secret with SECRETS_KEY (rotation: the old key in SECRETS_KEY_PREVIOUS)');
  act(reseal, (config) => {
    const box = secretBoxFor(config);
    return withDatabase(config, (orm) => resealSecrets(orm, box));
  });
}
