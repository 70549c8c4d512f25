import type { PartnerCall } from '../../src/domain/partner-health';
import { MAX_PENDING, PartnerCallLog } from '../../src/persistence/partner/partner-call-store';

// Issue 46: the measured calls wait in memory and are written in one insert per batch; a database
// down for long costs the oldest calls (with one warning), never memory without bound, never a throw.

const call = (latencyMs: number): PartnerCall => ({ partner: 'momo', call: 'submit', outcome: 'answered', httpStatus: null, latencyMs, at: new Date('2026-12-17T12:00:00Z') });

function fakeOrm(fail: () => boolean) {
  const batches: Array<Array<{ latency_ms: number }>> = [];
  const orm = {
    em: {
      getConnection: () => ({
        execute: async (_sql: string, params: unknown[]) => {
          if (fail()) throw new Error('connection refused');
          batches.push(JSON.parse(params[0] as string));
        },
      }),
    },
  };
  return { orm: orm as never, batches };
}

test('one insert per flush, in the order recorded; nothing to write: no statement', async () => {
  const { orm, batches } = fakeOrm(() => false);
  const log = new PartnerCallLog(orm, { warn: jest.fn() }, 0);
  log.record(call(1.4));
  log.record(call(2));
  await log.flush();
  await log.flush();
  expect(batches.map((b) => b.map((row) => row.latency_ms))).toEqual([[1, 2]]);
});

test('a failed write drops its batch with a warning and never throws; past MAX_PENDING the oldest go, said once', async () => {
  let down = true;
  const { orm, batches } = fakeOrm(() => down);
  const warn = jest.fn();
  const log = new PartnerCallLog(orm, { warn }, 0);
  log.record(call(1));
  await expect(log.flush()).resolves.toBeUndefined();
  expect(warn).toHaveBeenCalledTimes(1);
  down = false;
  for (let i = 0; i < MAX_PENDING + 5; i++) log.record(call(i));
  await log.close();
  expect(warn).toHaveBeenCalledTimes(2);
  expect(warn.mock.calls[1][0]).toEqual({ dropped: 5 });
  expect(batches).toHaveLength(1);
  expect(batches[0]).toHaveLength(MAX_PENDING);
  expect(batches[0][0].latency_ms).toBe(5);
});
