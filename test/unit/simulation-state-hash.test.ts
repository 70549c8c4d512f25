/**
 * `--replay-check`'s comparison (src/simulation/state-hash.ts): the tables whose hashes differ, each
 * with the columns that do; and the seeded UUIDs the simulation's references take (src/support/new-id.ts).
 */
import { differingTables, type StateHash } from '../../src/simulation/state-hash';
import { newUuid, resetIdSource, setIdSource } from '../../src/support/new-id';

const table = (md5: string, columns: Record<string, string>, rows = 1) => ({ rows, md5, columns });

test('differingTables names each table that differs, with its columns, and a table one side lacks', () => {
  const a: StateHash = { charges: table('aa', { id: '1', amount: '2' }), events: table('ee', { body: '3' }), payouts: table('pp', { id: '4' }) };
  const b: StateHash = { charges: table('ab', { id: '1', amount: '9' }), events: table('ee', { body: '3' }), refunds: table('rr', { id: '5' }) };
  expect(differingTables(a, b)).toEqual([
    { table: 'charges', rows: [1, 1], columns: ['amount'] },
    { table: 'payouts', rows: [1, 0], columns: ['id'] },
    { table: 'refunds', rows: [0, 1], columns: ['id'] },
  ]);
  expect(differingTables(a, a)).toEqual([]);
});

test('newUuid: a version 4 UUID, from crypto, or from the seeded source the same each time', () => {
  const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  expect(newUuid()).toMatch(v4);
  const seeded = () => {
    let n = 0;
    setIdSource((length) => Array.from({ length }, () => 'abcdefghij'[n++ % 10]).join(''));
    try {
      return [newUuid(), newUuid()];
    } finally {
      resetIdSource();
    }
  };
  const [first, second] = seeded();
  expect(first).toMatch(v4);
  expect(second).toMatch(v4);
  expect(seeded()).toEqual([first, second]);
});
