import { Pool } from 'undici';
import { ACCOUNTS, type Transfer } from '../../../src/domain/ledger';
import { computePayoutFee } from '../../../src/domain/payout';
import { addToBalances } from '../../../src/persistence/ledger/account-balances';
import { postTransfer } from '../../../src/persistence/ledger/ledger';
import { randomBase62 } from '../../../src/support/new-id';
import type { BenchInfra } from './infra';
import { runPhase, type PhaseResult } from './load';

const MTN_GH = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';
/** The charge phase's amount: far below the default review threshold (5,000,000), so no payout waits for review. */
export const PAYOUT_AMOUNT = 15000;

function payoutBody(reference: string): string {
  return JSON.stringify({
    amount: PAYOUT_AMOUNT,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    recipient: { identifier: '233241234567', name: 'Kofi Boateng' },
    reference,
    description: 'Benchmark payout',
    metadata: {},
  });
}

/**
 * Credits the merchant's sandbox available balance with what `count` payouts of PAYOUT_AMOUNT debit
 * (amount plus fee each), as a captured collection would: one balanced transfer customer_clearing →
 * merchant_available, its ledger entries and balance rows in one transaction (the ledger stays
 * balanced). Done before the phase, so every create is accepted and none is refused for balance.
 */
export async function fundForPayouts(infra: BenchInfra, merchantId: string, count: number): Promise<number> {
  const amount = count * computePayoutFee(PAYOUT_AMOUNT, 'mobile_money').totalDebit;
  const resourceId = `fund_${randomBase62(24)}`;
  const transfer: Transfer = {
    id: `${resourceId}:capture`,
    kind: 'capture',
    postings: [
      { account: ACCOUNTS.customerClearing, amount: -amount },
      { account: ACCOUNTS.merchantAvailable, amount },
    ],
  };
  const scope = { merchantId, environment: 'sandbox' as const, currency: 'GHS' };
  await infra.orm.em.fork().transactional(async (em) => {
    postTransfer(em, { ...scope, resourceId }, transfer, new Date());
    await em.flush();
    await addToBalances(em, scope, [transfer]);
  });
  return amount;
}

export interface PayoutPhaseOptions {
  key: string;
  name: string;
  /** Reference prefix, so phases do not share references. */
  referencePrefix: string;
}

/**
 * N POST /v1/payouts against the sandbox listener, as the charge phase sends charges (one fresh
 * Idempotency-Key each, CONCURRENCY connections and lanes): every answer must be 200 `pending` (the
 * merchant is funded, the amount below the review threshold); then every payout is awaited to
 * `succeeded` through `result()` of its workflow (workflow id = payout id; it ends with the payout's
 * state), about three seconds of sandbox rail after its create.
 */
export async function runPayoutPhase(infra: BenchInfra, n: number, concurrency: number, options: PayoutPhaseOptions): Promise<PhaseResult> {
  const pool = new Pool(infra.apiUrl, { connections: concurrency, pipelining: 1 });
  const headers = { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' };
  try {
    return await runPhase({
      name: options.name,
      n,
      concurrency,
      async create(i) {
        const res = await pool.request({
          path: '/v1/payouts',
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `bench-${randomBase62(20)}` },
          body: payoutBody(`${options.referencePrefix}-${i}`),
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
        const payout = JSON.parse(text) as { id: string; status: string };
        if (payout.status !== 'pending') throw new Error(`created as ${payout.status}`);
        return payout.id;
      },
      historyLength: async (id) => (await infra.temporal.client.workflow.getHandle(id).describe()).historyLength,
      async awaitResult(id) {
        const final = (await infra.temporal.client.workflow.getHandle(id).result()) as { status?: unknown } | null;
        if (final?.status !== 'succeeded') throw new Error(`${id} ended ${String(final?.status)}`);
      },
    });
  } finally {
    await pool.close();
  }
}
