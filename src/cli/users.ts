import { isIdOf } from '../domain/ids';
import { isPortalRole, PORTAL_ROLES, type PortalRole } from '../domain/portal-roles';
import { changePortalUserAccess, setPortalUserRole } from '../persistence/portal/portal-user-access';
import { createPortalUser, listPortalUsers } from '../persistence/portal/portal-user-store';
import { randomBase62 } from '../support/new-id';
import { hashPassword, passwordProblem } from '../support/password';
import { act, flag, type CliCommand } from './command';
import { withDatabase } from './connect';
import { auditedActor, emailOption, merchantIdOption, OPERATOR_HELP, readPasswordFromStdin, REASON_HELP, REQUIRED_OPERATOR_HELP, requiredActor, UsageError } from './shared';

/** The access changes of a portal user (audited as operator_audit portal_user.*: src/persistence/portal/portal-user-access.ts). */
const ACCESS = [
  ['disable', 'disable', 'its portal sessions end at once and it cannot sign in (audited); disabled by an operator, only an operator enables it again'],
  ['enable', 'enable', 'it can sign in again (audited); an operator enables any user, whoever disabled it'],
  ['revoke-sessions', 'revoke_sessions', 'ends its portal sessions now (audited)'],
] as const;

const ROLE_LIST = PORTAL_ROLES.join(', ');

/** --role: one of the portal's roles (src/domain/portal-roles.ts). */
function roleOption(value: string | undefined): PortalRole {
  if (!isPortalRole(value)) throw new UsageError(`--role must be one of ${ROLE_LIST}`);
  return value;
}

const idOf = (id: string | undefined): string => {
  if (!id || !isIdOf('portalUser', id)) throw new UsageError('a portal user id (usr_…) is required: see users list --merchant MERCHANT_ID');
  return id;
};

/**
 * `cli users create|list|set-role|disable|enable|revoke-sessions`: merchant portal users. The CLI acts
 * as an operator: it may enable any user, disable any (the last owner included: a stolen laptop), and
 * set any role but demote the merchant's last active owner (src/domain/portal-roles.ts).
 */
export function addUserCommands(program: CliCommand): void {
  const users = program.command('users').description('merchant portal users');
  const create = users
    .command('create')
    .description('a merchant portal user; without --password-stdin a password is generated and printed once')
    .option('--merchant <MERCHANT_ID>', 'the merchant')
    .option('--email <EMAIL>', 'its sign-in')
    .option('--password-stdin', 'its password, read from stdin (never an argument: argv is visible to other users)')
    .option('--role <ROLE>', `${ROLE_LIST}: required once the merchant has a user; its first user defaults to owner`)
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', REQUIRED_OPERATOR_HELP);
  act(create, async (config, values, _args, context) => {
    const actor = requiredActor(values);
    const merchant = merchantIdOption(values.merchant);
    if (values.email === undefined) throw new UsageError('--email is required');
    const email = emailOption(values.email, '--email');
    const role = values.role === undefined ? undefined : roleOption(values.role);
    // The password: from stdin (never an argument: argv is visible to other users), else generated and printed once.
    const given = flag(values, 'passwordStdin') ? await readPasswordFromStdin(context) : undefined;
    const password = given ?? randomBase62(20);
    const problem = passwordProblem(password, email);
    if (problem) throw new Error(problem);
    const hash = await hashPassword(password);
    const user = await withDatabase(config, (orm) => createPortalUser(orm, merchant, email, hash, actor, role));
    return given === undefined ? { ...user, password } : user;
  });
  const list = users.command('list').description("the merchant's portal users: role, status and who disabled a disabled one (operator or portal)").option('--merchant <MERCHANT_ID>', 'the merchant');
  act(list, (config, values) => {
    if (!values.merchant) throw new UsageError('--merchant is required');
    const merchant = values.merchant;
    return withDatabase(config, (orm) => listPortalUsers(orm, merchant));
  });
  const setRole = users
    .command('set-role')
    .description(`a portal user's role (${ROLE_LIST}; audited: portal_user.set_role, before and after); the merchant's last active owner is not demoted`)
    .requiredArgument('USR_ID', 'the portal user (users list --merchant MERCHANT_ID)', 'a portal user id (usr_…) is required: see users list --merchant MERCHANT_ID')
    .option('--role <ROLE>', `the new role: ${ROLE_LIST}`)
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', REQUIRED_OPERATOR_HELP);
  act(setRole, (config, values, [id]) => {
    const user = idOf(id);
    if (values.role === undefined) throw new UsageError(`--role is required (${ROLE_LIST})`);
    const role = roleOption(values.role);
    const actor = requiredActor(values);
    return withDatabase(config, (orm) => setPortalUserRole(orm, user, role, actor, { kind: 'operator' }));
  });
  for (const [verb, action, description] of ACCESS) {
    const change = users
      .command(verb)
      .description(description)
      .requiredArgument('USR_ID', 'the portal user (users list --merchant MERCHANT_ID)', 'a portal user id (usr_…) is required: see users list --merchant MERCHANT_ID')
      .option('--reason <TEXT>', REASON_HELP)
      .option('--operator <NAME>', OPERATOR_HELP);
    act(change, (config, values, [given]) => {
      const id = idOf(given);
      const actor = auditedActor(values);
      return withDatabase(config, async (orm) => {
        const result = await changePortalUserAccess(orm, id, action, actor, { kind: 'operator' });
        return action === 'revoke_sessions' && result.sessions_revoked === 0 ? { ...result, note: 'no session to end: nothing changed, no audit row written' } : result;
      });
    });
  }
}
