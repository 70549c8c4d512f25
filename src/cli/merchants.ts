import { createMerchant, verifyMerchant } from '../persistence/merchants/merchant-store';
import { updateMerchantSettings } from '../persistence/merchants/merchant-settings-store';
import { createPortalUser, findPortalUserByEmail } from '../persistence/portal/portal-user-store';
import { secretBoxFor } from '../runtime/secrets-key';
import { randomBase62 } from '../support/new-id';
import { hashPassword, passwordProblem } from '../support/password';
import { act, flag, type CliCommand } from './command';
import { withDatabase } from './connect';
import { merchantSettingsChange, setMerchantSettings } from './merchant-settings';
import { changeActor, emailOption, OPERATOR_HELP, readPasswordFromStdin, REASON_HELP, REQUIRED_OPERATOR_HELP, requiredActor, UsageError } from './shared';

/** `cli merchants create|verify|set`. */
export function addMerchantCommands(program: CliCommand): void {
  const merchants = program.command('merchants').description('merchants: create one, verify it for live, its settings');
  const create = merchants
    .command('create')
    .description('a merchant and its test and live keys (audited as key changes); their secrets are printed once')
    .option('--name <NAME>', "the merchant's name")
    .option('--email <EMAIL>', 'the notification email and the first merchant portal user, whose password is generated and printed once unless given on stdin')
    .option('--password-stdin', "with --email: the portal user's password, read from stdin")
    .option('--reason <TEXT>', 'why, for the audit log (default: the command)')
    .option('--operator <NAME>', OPERATOR_HELP);
  act(create, async (config, values, _args, context) => {
    if (!values.name) throw new UsageError('--name is required');
    const name = values.name;
    const email = values.email === undefined ? undefined : emailOption(values.email, '--email');
    const actor = changeActor(values, 'merchants create');
    // --email is also the first portal user's sign-in (its password from stdin, else generated and printed once).
    const given = email !== undefined && flag(values, 'passwordStdin') ? await readPasswordFromStdin(context) : undefined;
    const password = email === undefined ? undefined : (given ?? randomBase62(20));
    const problem = password === undefined ? null : passwordProblem(password, email);
    if (problem) throw new Error(problem);
    const hash = password === undefined ? undefined : await hashPassword(password);
    return withDatabase(config, async (orm) => {
      if (email !== undefined && (await findPortalUserByEmail(orm, email))) throw new UsageError(`a portal user with the email ${email} already exists; choose another --email`);
      const m = await createMerchant(orm, name, actor);
      if (email === undefined || hash === undefined) return { id: m.id, test_key: m.testKey.secret, live_key: m.liveKey.secret };
      // --email: the merchant's notification email (merchants set --notification-email changes it) and its first portal user.
      await updateMerchantSettings(orm, m.id, { notificationEmail: email }, actor);
      const user = await createPortalUser(orm, m.id, email, hash, actor);
      const portalUser = { id: user.id, email: user.email, ...(given === undefined ? { password } : {}) };
      return { id: m.id, test_key: m.testKey.secret, live_key: m.liveKey.secret, notification_email: email, portal_user: portalUser };
    });
  });
  const verify = merchants
    .command('verify')
    .description('the merchant is verified: its live key may be used (audited: merchant.verify)')
    .requiredArgument('MERCHANT_ID', 'the merchant', 'merchant id is required')
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', REQUIRED_OPERATOR_HELP);
  act(verify, (config, values, [id]) => {
    const actor = requiredActor(values);
    return withDatabase(config, async (orm) => {
      const result = await verifyMerchant(orm, id!, actor);
      return result.changed ? result : { ...result, note: 'already verified: nothing changed, no audit row written' };
    });
  });
  const set = merchants
    .command('set')
    .description("changes the merchant's settings (live limits: per currency, N in its minor units); audited (merchant.settings_update), a replaced settlement account emailed and its live settlements held (SETTLEMENT_ACCOUNT_HOLD)")
    .requiredArgument('MERCHANT_ID', 'the merchant', 'merchant id is required')
    .option('--payout-review-threshold <N>', 'payouts of N minor units or more are held for review')
    .option('--settlement-bank <CODE>', 'the settlement bank (a code of GET /v1/reference/banks), with --settlement-account')
    .option('--settlement-account <NUMBER>', 'the settlement account number (6 to 20 digits; stored sealed)')
    .option('--live-max-amount <CUR:N[,CUR:N…]>', 'the largest live payment per currency')
    .option('--live-daily-limit <CUR:N[,CUR:N…]>', 'the live total per day per currency')
    .option('--notification-email <EMAIL>', 'where notifications go ("" for none); not with --settlement-account')
    .option('--routes <ROUTES>', 'the merchant\'s own routes, RAIL_ROUTES\' syntax (e.g. "mobile_money:GHS=aggregator|momo"; "" for the start\'s): each takes the place of the start\'s route of its channel and currency for new live payments')
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', REQUIRED_OPERATOR_HELP);
  act(set, (config, values, [id], context) => {
    const actor = requiredActor(values);
    const change = merchantSettingsChange(values, () => secretBoxFor(config));
    return setMerchantSettings(config, context.env, id!, change, actor);
  });
}
