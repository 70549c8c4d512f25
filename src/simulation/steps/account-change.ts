import { normalizeBankCode, parseSettlementAccountNumber, sealAccountNumber } from '../../domain/settlement-account';
import { changeMerchantSettings } from '../../persistence/merchants/merchant-settings-store';
import { secretBoxFor } from '../../runtime/secrets-key';
import { newId } from '../../support/new-id';
import type { StepHandler } from '../types';
import { done, refusal, resolveRef, skipped } from './common';
import { SIM_OPERATOR } from './operator';

/**
 * `settlement_account_change`, as `merchants set M --settlement-account GCB:N --reason R --operator O`
 * does it (the store's changeMerchantSettings: the new account sealed, the audit row, the merchant's
 * email queued, and its next live settlements held for the engine's SETTLEMENT_ACCOUNT_HOLD, 24 h by
 * default, all in one transaction). The email's workflow is not started: the engine runs no
 * notification relay, and the email moves no money. What follows is the plan's: a settlement run
 * inside the hold (skipped), a time jump past it.
 */
export const settlementAccountChangeStep: StepHandler = async (ctx, step) => {
  const ref = resolveRef(ctx, step, 'merchant');
  if (typeof ref === 'string') return skipped(step, ref);
  const box = ctx.secretBox ?? (ctx.config ? secretBoxFor(ctx.config) : null);
  if (!box) return skipped(step, 'the engine gives no secret box: no settlement account to change');
  const account = parseSettlementAccountNumber(String(step.params.settlement_account));
  if (!account) return skipped(step, `settlement account "${String(step.params.settlement_account)}" is not an account number`);
  try {
    const result = await changeMerchantSettings(
      ctx.orm,
      ref.id,
      { settlementAccount: { bankCode: normalizeBankCode('GCB')!, account: sealAccountNumber(box, account) } },
      { operator: SIM_OPERATOR, reason: String(step.params.reason), requestId: newId('request') },
      { ...(ctx.config ? { holdMs: ctx.config.settlementAccountHoldMs } : {}), openAccount: (sealed) => box.open(sealed) },
    );
    return done(step, `merchants set ${ref.id} --settlement-account: ${result.changed.length ? `changed ${result.changed.join(', ')}` : 'nothing changed'}${result.heldUntil ? `, live settlements held until ${result.heldUntil}` : ''}`);
  } catch (error) {
    return done(step, refusal(error));
  }
};
