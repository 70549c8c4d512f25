import { isIdOf } from '../domain/ids';
import { changePortalUserAccess } from '../persistence/portal/portal-user-access';
import { createPortalUser, listPortalUsers } from '../persistence/portal/portal-user-store';
import { randomBase62 } from '../support/new-id';
import { hashPassword, passwordProblem } from '../support/password';
import { act, flag, type CliCommand } from './command';
import { withDatabase } from './connect';
import { auditedActor, emailOption, merchantIdOption, OPERATOR_HELP, readPasswordFromStdin, REASON_HELP, REQUIRED_OPERATOR_HELP, requiredActor, UsageError } from './shared';

/** The access changes of a portal user (audited as operator_audit portal_user.*: src/persistence/portal/portal-user-access.ts). */
const ACCESS = [
  ['disable', 'disable', 'its portal sessions end at once and it cannot sign in (audited)'],
  ['enable', 'enable', 'it can sign in again (audited)'],
  ['revoke-sessions', 'revoke_sessions', 'ends its portal sessions now (audited)'],
] as const;

/** `cli users create|list|disable|enable|revoke-sessions`: merchant portal users. */
export function addUserCommands(program: CliCommand): void {
  const users = program.command('users').description('merchant portal users');
  const create = users
    .command('create')
    .description('a merchant portal user; without --password-stdin a password is generated and printed once')
    .option('--merchant <MERCHANT_ID>', 'the merchant')
    .option('--email <EMAIL>', 'its sign-in')
    .option('--password-stdin', 'its password, read from stdin (never an argument: argv is visible to other users)')
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', REQUIRED_OPERATOR_HELP);
  act(create, async (config, values, _args, context) => {
    const actor = requiredActor(values);
    const merchant = merchantIdOption(values.merchant);
    if (values.email === undefined) throw new UsageError('--email is required');
    const email = emailOption(values.email, '--email');
    // The password: from stdin (never an argument: argv is visible to other users), else generated and printed once.
    const given = flag(values, 'passwordStdin') ? await readPasswordFromStdin(context) : undefined;
    const password = given ?? randomBase62(20);
    const problem = passwordProblem(password, email);
    if (problem) throw new Error(problem);
    const hash = await hashPassword(password);
    const user = await withDatabase(config, (orm) => createPortalUser(orm, merchant, email, hash, actor));
    return given === undefined ? { ...user, password } : user;
  });
  const list = users.command('list').description("the merchant's portal users").option('--merchant <MERCHANT_ID>', 'the merchant');
  act(list, (config, values) => {
    if (!values.merchant) throw new UsageError('--merchant is required');
    const merchant = values.merchant;
    return withDatabase(config, (orm) => listPortalUsers(orm, merchant));
  });
  for (const [verb, action, description] of ACCESS) {
    const change = users
      .command(verb)
      .description(description)
      .requiredArgument('USR_ID', 'the portal user (users list --merchant MERCHANT_ID)', 'a portal user id (usr_…) is required: see users list --merchant MERCHANT_ID')
      .option('--reason <TEXT>', REASON_HELP)
      .option('--operator <NAME>', OPERATOR_HELP);
    act(change, (config, values, [id]) => {
      if (!id || !isIdOf('portalUser', id)) throw new UsageError('a portal user id (usr_…) is required: see users list --merchant MERCHANT_ID');
      const actor = auditedActor(values);
      return withDatabase(config, async (orm) => {
        const result = await changePortalUserAccess(orm, id, action, actor);
        return action === 'revoke_sessions' && result.sessions_revoked === 0 ? { ...result, note: 'no session to end: nothing changed, no audit row written' } : result;
      });
    });
  }
}
