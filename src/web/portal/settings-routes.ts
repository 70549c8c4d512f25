import { DEFAULT_RATE_LIMITS } from '../../config';
import { liveDailyUsageToday } from '../../persistence/merchants/live-limits-store';
import { readMerchantAccount } from '../../persistence/merchants/merchant-settings-store';
import { listBanks } from '../../persistence/reference-store';
import { minorUnitsOf } from './balances-money';
import { callerOf, frameOf, html, notFoundText, type PortalRoutes } from './kit';
import { settingsPage } from './settings-page';

export const SETTINGS_PATH = '/settings';

/**
 * Settings, read only: the session's merchant as `merchants set` / `merchants verify` stored it
 * (readMerchantAccount: the settlement account masked by the store, never whole), today's live usage
 * (the counter applyLiveLimits keeps), and the environment's API rate limit (the listeners' own, from WebOptions; the defaults without it).
 */
export const settingsRoutes: PortalRoutes = (router, kit) => {
  const { orm } = kit.deps;

  router.get(SETTINGS_PATH, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    const caller = callerOf(session);
    const account = await readMerchantAccount(orm, caller.merchantId);
    if (!account) return notFoundText(ctx);
    const bankCode = account.settings.settlement_account?.bank_code;
    const bankName = bankCode ? ((await listBanks(orm)).find((b) => b.code === bankCode)?.name ?? null) : null;
    html(
      ctx,
      200,
      settingsPage(frameOf(session, SETTINGS_PATH), {
        merchantId: caller.merchantId,
        account,
        bankName,
        usageToday: await liveDailyUsageToday(orm.em.fork(), caller.merchantId),
        rateLimit: (kit.options.rateLimits ?? DEFAULT_RATE_LIMITS)[caller.environment],
        units: await minorUnitsOf(orm),
      }),
    );
  });
};
