import type { ChaosDb } from './db';
import type { ChaosReceiver } from './receiver';
import type { ChaosMerchant } from './setup';

export interface DrainOutcome {
  seconds: number;
  settled: boolean;
  /** What was still moving when the wait ended. */
  remaining: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What is still on its way: sandbox payments not ended, deliveries pending, events the receiver has not had. */
async function inFlight(db: ChaosDb, merchants: ChaosMerchant[], receiver: ChaosReceiver): Promise<{ total: number; text: string }> {
  const ids = merchants.map((m) => m.id);
  const [payments] = await db.rows<{ n: string }>(
    `select (
       (select count(*) from charges where merchant_id = any($1) and environment = 'sandbox' and status in ('pending', 'awaiting_action')) +
       (select count(*) from payouts where merchant_id = any($1) and environment = 'sandbox' and status = 'pending') +
       (select count(*) from refunds where merchant_id = any($1) and status = 'pending') +
       (select count(*) from disputes where merchant_id = any($1) and status = 'under_review') +
       (select count(*) from settlements where merchant_id = any($1) and environment = 'sandbox' and status = 'pending'))::text as n`,
    [ids],
  );
  const [deliveries] = await db.rows<{ n: string }>(`select count(*)::text as n from webhook_deliveries where merchant_id = any($1) and status = 'pending'`, [ids]);
  let undelivered = 0;
  for (const m of merchants) {
    const events = await db.rows<{ id: string }>(
      `select e.id from events e join webhook_endpoints w on w.id = $2 where e.merchant_id = $1 and e.environment = 'sandbox' and e.created_at >= w.created_at`,
      [m.id, m.endpointId],
    );
    const got = new Set(receiver.received.filter((r) => r.endpoint === m.endpointName && r.answered >= 200 && r.answered < 300).map((r) => r.eventId));
    undelivered += events.filter((e) => !got.has(e.id)).length;
  }
  const p = Number(payments!.n);
  const d = Number(deliveries!.n);
  return { total: p + d + undelivered, text: `${p} sandbox payments in flight, ${d} deliveries pending, ${undelivered} events not yet received` };
}

/**
 * After the load stops and the last fault recovered: waits until the sandbox payments have ended
 * and every delivery has arrived (live payments may rightly wait for the partner much longer: the
 * payments check allows for that), at most `limitS` seconds.
 */
export async function drain(db: ChaosDb, merchants: ChaosMerchant[], receiver: ChaosReceiver, limitS: number, say: (line: string) => void): Promise<DrainOutcome> {
  const started = Date.now();
  let last = '';
  let lastSaid = 0;
  while (Date.now() - started < limitS * 1000) {
    try {
      const now = await inFlight(db, merchants, receiver);
      last = now.text;
      if (now.total === 0) return { seconds: Math.round((Date.now() - started) / 1000), settled: true, remaining: last };
      if (Date.now() - lastSaid > 15_000) {
        say(`draining: ${last}`);
        lastSaid = Date.now();
      }
    } catch (e) {
      last = `database not answering: ${(e as Error).message}`;
    }
    await sleep(2_000);
  }
  return { seconds: limitS, settled: false, remaining: last };
}
