import type { Environment } from '../../src/domain/environment';
import type { SettlementOutcome, SettlementState } from '../../src/domain/settlement';
import { sealAccountNumber } from '../../src/domain/settlement-account';
import { updateMerchantSettings } from '../../src/persistence/merchants/merchant-settings-store';
import { systemActor } from '../../src/persistence/merchants/merchant-store';
import type { Harness } from './harness';

/**
 * A settlement account as `merchants set --settlement-bank --settlement-account` sets it (the number
 * sealed with the suite's key), audited as the system's change. A test that swaps accounts to script
 * the fake partner (its last digits) is not about the account change's hold (issue 43; tested in
 * merchant-settings-audit.test.ts): as with SETTLEMENT_ACCOUNT_HOLD=0, a replaced account holds nothing.
 */
export function giveSettlementAccount(h: Harness, merchantId: string, accountNumber = '0012345678901', bankCode = 'GCB') {
  return updateMerchantSettings(h.orm, merchantId, { settlementAccount: { bankCode, account: sealAccountNumber(h.deps.secretBox, accountNumber) } }, systemActor('test: settlement account'), { holdMs: 0 });
}

export interface BatchRow {
  id: string;
  environment: Environment;
  currency: string;
  status: string;
  amount: number;
  run_id: string | null;
}

/** The merchant's settlement batches as stored, oldest first. */
export function batchRows(h: Harness, merchantId: string): Promise<BatchRow[]> {
  return h.orm.em
    .getConnection()
    .execute<BatchRow[]>(`select id, environment, currency, status, amount::int as amount, run_id from settlements where merchant_id = ? order by created_at, id`, [merchantId]);
}

/**
 * Waits for batch workflows to end: their results, or, for a failed batch (whose run stays open until
 * `settlements retry`), its state once it waits for the retry (the `chargeAttention` query, polled).
 */
export function batchResults(h: Harness, ids: string[]): Promise<SettlementOutcome[]> {
  return Promise.all(ids.map((id) => batchOutcome(h, id)));
}

async function batchOutcome(h: Harness, id: string): Promise<SettlementOutcome> {
  const handle = h.temporal.client.workflow.getHandle(id);
  for (let i = 0; i < 600; i++) {
    if ((await handle.describe()).status.name !== 'RUNNING') return handle.result() as Promise<SettlementOutcome>;
    const attention = await handle.query<{ needsAttention: boolean }>('chargeAttention').catch(() => undefined);
    const state = attention?.needsAttention ? await handle.query<SettlementState | undefined>('settlementState') : undefined;
    if (state?.status === 'failed') return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`settlement ${id} neither ended nor waited for a retry`);
}

/** The kept skip of a balance, or undefined. */
export async function skipRow(h: Harness, merchantId: string, environment: Environment, currency = 'GHS') {
  const rows = await h.orm.em
    .getConnection()
    .execute<{ reason: string; run_id: string }[]>(`select reason, run_id from settlement_skips where merchant_id = ? and environment = ? and currency = ?`, [merchantId, environment, currency]);
  return rows[0];
}

/** Each settlement transfer of the merchant, with how many ledger rows it has (sweep: 2, post/release: 2; never more). */
export function settlementTransfers(h: Harness, merchantId: string) {
  return h.orm.em
    .getConnection()
    .execute<{ transfer_id: string; kind: string; n: number }[]>(
      `select transfer_id, kind, count(*)::int as n from ledger_entries where merchant_id = ? and kind like 'settlement_%' group by transfer_id, kind order by transfer_id`,
      [merchantId],
    );
}
